// Every text frame the engine sends a test's client (WsClient) is checked against asyncapi.json,
// the protocol's description that client authors generate their code from: a field the document
// does not have, one of another type, a type it does not list, each fails the test that received
// it (test/jest-setup.mjs runs `afterTest` after each test's body).
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

let byType: Map<string, ValidateFunction> | undefined;
let errorsText: (errors: ValidateFunction['errors']) => string;

/** The engine's messages' schemas, by type, compiled at the first frame (once a worker). */
function validators(): Map<string, ValidateFunction> {
  if (byType) return byType;
  const doc = JSON.parse(readFileSync('asyncapi.json', 'utf8'));
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addFormat('binary', true);
  ajv.addSchema(doc, 'asyncapi');
  errorsText = (errors) => ajv.errorsText(errors);
  byType = new Map();
  for (const [key, message] of Object.entries<any>(doc.components.messages))
    if (key.startsWith('engine.') && message.contentType === 'application/json')
      byType.set(message.name, ajv.getSchema(`asyncapi#/components/messages/${key}/payload`)!);
  return byType;
}

const found: string[] = [];

/** Checks one frame the engine sent; what does not fit is kept for `afterTest`. */
export function checkFrame(frame: unknown): void {
  const type = (frame as { type?: unknown } | null)?.type;
  const validate = typeof type === 'string' ? validators().get(type) : undefined;
  const seen = JSON.stringify(frame).slice(0, 400);
  if (!validate) found.push(`a message of a type asyncapi.json has not: ${seen}`);
  else if (!validate(frame)) found.push(`${seen}: ${errorsText(validate.errors)}`);
}

/** Throws if a frame since the last call did not fit the document (and forgets them). */
function afterTest(): void {
  if (found.length === 0) return;
  const frames = found.splice(0);
  throw new Error(
    `the engine sent ${frames.length} frame(s) asyncapi.json does not describe (fix the engine, or its message types and npm run asyncapi):\n${frames.slice(0, 5).join('\n')}`,
  );
}

// The checks test/jest-setup.mjs runs after each test's body.
((globalThis as any)[Symbol.for('engine-tests.afterTest')] ??= new Set()).add(afterTest);
