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
  const text = JSON.stringify(document);
  // A `__proto__` key (a schema's `default` or `example` may hold any JSON) would be taken for
  // the prototype of the converter's copy of its object: it goes through under another name.
  const proto = text.includes('"__proto__"');
  const copy = mended(
    JSON.parse(
      proto ? text.replaceAll('"__proto__":', `${JSON.stringify(HELD_PROTO)}:`) : text,
    ) as Swagger2Place,
  );
  try {
    const { openapi } = await withoutFaultStacks(() =>
      converter.convertObj(copy, { patch: true, warnOnly: true }),
    );
    if (proto) restoreProto(openapi, new WeakSet());
    return openapi as OpenApiSpec;
  } catch (error) {
    // Its own words (`info must be an object`), or the fault of a slip the converter trips on.
    throw new Error(`its conversion to OpenAPI 3 failed: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/** `__proto__`'s name through the converter (a key no document has). */
const HELD_PROTO = '\u0000__proto__';

/** The `__proto__` keys of `value`'s objects, named so through the converter, as they were. */
function restoreProto(value: unknown, seen: WeakSet<object>): void {
  if (typeof value !== 'object' || value === null || seen.has(value)) return;
  seen.add(value);
  for (const [key, inner] of Object.entries(value)) {
    restoreProto(inner, seen);
    if (key !== HELD_PROTO) continue;
    delete (value as Record<string, unknown>)[key];
    Object.defineProperty(value, '__proto__', {
      value: inner,
      enumerable: true,
      writable: true,
      configurable: true,
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
