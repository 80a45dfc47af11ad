/**
 * Random API documents for the property specs of OpenAPI entries: JSON Schemas as documents write
 * them (or wrong), entries naming the document's operations, and the property every document
 * keeps (tools made, or refused naming the entry and field).
 */
import fc from 'fast-check';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolDefinitionError } from '../../src/tools/definition-error.js';
import { expandOpenApi } from '../../src/tools/openapi/openapi-expand.js';
import { atEntries } from '../../src/tools/openapi/openapi-spread.js';
import { validateToolDefinitions } from '../../src/tools/tool-validation.js';
import { FAULT_WORDS } from './chaos-checks.js';

export const anything = fc.jsonValue({ maxDepth: 2 });

/** What the field should hold (`right`) but once in `odds`, when it is any JSON. */
export const rightBut =
  (odds: number) =>
  <T>(right: fc.Arbitrary<T>) =>
    fc.oneof({ weight: odds - 1, arbitrary: right }, anything as fc.Arbitrary<unknown>);

/** Mostly what the field should hold (`right`), sometimes (one in 16) any JSON. */
const mostly = rightBut(16);

/**
 * JSON Schemas as documents write them: typed, nested, referenced (`${refs}Order`, the one
 * schema the document defines; `${refs}None`, rarer, to nothing), or wrong.
 */
export function schemas(refs: string): fc.Arbitrary<unknown> {
  return fc.letrec<{ schema: unknown }>((tie) => {
    const typed = fc.record(
      {
        type: mostly(fc.constantFrom('string', 'integer', 'number', 'boolean', 'array', 'object')),
        format: fc.constantFrom('date', 'date-time', 'email', 'int64', 'binary'),
        enum: mostly(fc.array(fc.oneof(fc.string(), fc.integer()), { maxLength: 3 })),
        nullable: fc.boolean(),
        default: anything,
      },
      { requiredKeys: [] },
    );
    const object = fc
      .record(
        {
          properties: mostly(
            fc.dictionary(fc.string({ maxLength: 6 }), tie('schema'), { maxKeys: 3 }),
          ),
          required: mostly(fc.array(fc.string({ maxLength: 6 }), { maxLength: 2 })),
          additionalProperties: fc.oneof(fc.boolean(), tie('schema')),
        },
        { requiredKeys: [] },
      )
      .map((s) => ({ type: 'object', ...s }));
    return {
      schema: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        { weight: 96, arbitrary: typed },
        { weight: 96, arbitrary: object },
        { weight: 48, arbitrary: tie('schema').map((items) => ({ type: 'array', items })) },
        {
          weight: 16,
          arbitrary: fc
            .array(tie('schema'), { minLength: 1, maxLength: 2 })
            .map((oneOf) => ({ oneOf })),
        },
        { weight: 48, arbitrary: fc.constant({ $ref: `${refs}Order` }) },
        // A reference to nothing, and anything at all: rarer (each may refuse the whole document,
        // and a document has many schemas).
        { weight: 1, arbitrary: fc.constant({ $ref: `${refs}None` }) },
        { weight: 8, arbitrary: anything },
      ),
    };
  }).schema;
}

/**
 * A document's `paths`, `mostly` right: a few, each of operations (`operation`, right or not) and
 * its shared parameters (`parameter`).
 */
export function paths(
  mostly: (right: fc.Arbitrary<unknown>) => fc.Arbitrary<unknown>,
  operation: fc.Arbitrary<unknown>,
  parameter: fc.Arbitrary<unknown>,
): fc.Arbitrary<unknown> {
  return mostly(
    fc.dictionary(
      fc.constantFrom('/orders/{id}', '/items', '/a/{b}/{c}', 'no-slash', '/{order_id}'),
      mostly(
        fc.record(
          {
            get: mostly(operation),
            post: mostly(operation),
            delete: mostly(operation),
            parameters: mostly(fc.array(mostly(parameter), { maxLength: 2 })),
            'x-ext': anything,
          },
          { requiredKeys: [] },
        ),
      ),
      { maxKeys: 3 },
    ),
  );
}

/** An entry for the document's operations (all of them, or one named), with a key or a server. */
const entry = fc
  .tuple(
    fc.oneof(
      fc.constant({ operations: '*' }),
      fc.constantFrom('getOrder', 'GET /items', 'POST /orders/{id}', 'nope').map((operation) => ({
        operation,
      })),
    ),
    fc.oneof({ weight: 4, arbitrary: fc.constant({}) }, fc.constant({ api_key: 'k' })),
    fc.oneof(
      { weight: 4, arbitrary: fc.constant({}) },
      fc.constantFrom({ base_url: 'https://eu.example.com' }, { base_url: 'ftp://x' }),
    ),
  )
  .map(([which, key, base]) => ({ ...which, ...key, ...base }));

/** Documents drawn (CHAOS_RUNS more). */
const RUNS = Number(process.env.CHAOS_RUNS ?? 300);

/**
 * Whatever document (of `documents`) an entry names, it makes HTTP tools that are taken or
 * refused as any definition is, or is refused naming the file, the entry and the field: never
 * another error (a TypeError while the tools load would fail start-up, or a POST /api/tools,
 * without saying where), never in the words of a JavaScript fault. Each document is written to a
 * file and the entry loaded as tools.json would be: its tools made and validated, a refusal told
 * of the entry's place in the file, as the loader says it.
 */
export function anyDocumentLoads(title: string, documents: fc.Arbitrary<unknown>): void {
  describe(title, () => {
    const dir = mkdtempSync(join(tmpdir(), 'documents-'));
    let n = 0;
    const load = async (doc: unknown, which: Record<string, unknown>) => {
      const file = `doc-${++n}.json`;
      writeFileSync(join(dir, file), JSON.stringify(doc));
      const input = [{ type: 'openapi', spec: file, ...which }];
      const { definitions, placeOf, groups } = await expandOpenApi(input, 'tools.json', {
        baseDir: dir,
        timeoutMs: 1000,
      });
      try {
        validateToolDefinitions(definitions, 'tools.json');
      } catch (error) {
        if (!(error instanceof ToolDefinitionError)) throw error;
        throw new ToolDefinitionError(atEntries(error.message, 'tools.json', placeOf, groups));
      }
    };

    it(
      'make tools or are refused naming the entry and field, never fail otherwise',
      async () => {
        const outcomes = new Set<string>();
        await fc.assert(
          fc.asyncProperty(documents, entry, async (doc, which) => {
            try {
              await load(doc, which);
              outcomes.add('taken');
            } catch (error) {
              if (!(error instanceof ToolDefinitionError)) throw error;
              expect(error.message).toMatch(/^tools\.json: (tool #0|duplicate|the array holds no)/);
              // Said of the document, never as the fault it would cause in the code reading it.
              expect(error.message).not.toMatch(FAULT_WORDS);
              outcomes.add('refused');
            }
          }),
          { numRuns: RUNS },
        );
        expect([...outcomes].sort()).toEqual(['refused', 'taken']);
      },
      Math.max(60_000, RUNS * 20),
    );
  });
}
