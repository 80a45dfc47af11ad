/**
 * A Swagger 2.0 document (what many services still publish: Springfox's, older gateways') made
 * the OpenAPI 3.0 document tools are made from, by swagger2openapi, loaded with the first one.
 */
import type { OpenApiSpec } from './openapi-operation.js';

/**
 * `document` (Swagger 2.0, its references resolved but those that make a cycle) as OpenAPI 3.0:
 * host, basePath and schemes become its server; body and formData parameters its request body;
 * collectionFormat a style; securityDefinitions its security schemes; definitions its schemas
 * (where a cycle's references now point). Small slips are mended, as the Swagger Editor does,
 * and two it only flags: see `mended`.
 */
export async function fromSwagger2(document: OpenApiSpec): Promise<OpenApiSpec> {
  const { default: converter } = await import('swagger2openapi');
  // A copy: the converter changes what it is given, and the document resolved shares objects.
  const copy = mended(JSON.parse(JSON.stringify(document)) as Swagger2Place);
  try {
    const { openapi } = await withoutFaultStacks(() =>
      converter.convertObj(copy, { patch: true, warnOnly: true }),
    );
    return openapi as OpenApiSpec;
  } catch (error) {
    // Its own words (`info must be an object`), or the fault of a slip the converter trips on.
    throw new Error(`its conversion to OpenAPI 3 failed: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/** Where a Swagger 2.0 document says its API is. */
interface Swagger2Place {
  host?: string;
  basePath?: string;
  schemes?: string[];
}

/**
 * `document` with two common slips mended, which would make every tool's URL wrong: a `host`
 * written with its scheme (`https://api.example.com/`: the converter makes
 * `https://https://api.example.com`), whose scheme is then the `schemes` if none is given; a
 * `basePath` with no leading `/` (`v1`: `api.example.comv1`).
 */
function mended(document: Swagger2Place): Swagger2Place {
  const written = /^([a-z][a-z0-9+.-]*):\/\/([^/]*)\/*$/i.exec(document.host ?? '');
  if (written) {
    document.host = written[2];
    document.schemes ??= [written[1]!.toLowerCase()];
  }
  if (document.basePath && !document.basePath.startsWith('/'))
    document.basePath = `/${document.basePath}`;
  return document;
}

let converting = 0;
let warn: typeof console.warn | undefined;

/**
 * Runs `convert` with the converter's habit held: it prints each failure's stack with
 * `console.warn` before rejecting with it, outside the engine's log; the refusal says it. Other
 * warnings go on as they were.
 */
async function withoutFaultStacks<T>(convert: () => Promise<T>): Promise<T> {
  if (converting++ === 0) {
    const original = (warn = console.warn);
    console.warn = (...args: unknown[]) => {
      if (!(args.length === 1 && args[0] instanceof Error)) original.apply(console, args);
    };
  }
  try {
    return await convert();
  } finally {
    if (--converting === 0) console.warn = warn!;
  }
}
