import fc from 'fast-check';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolDefinitionError } from '../definition-error.js';
import { validateToolDefinitions } from '../tool-validation.js';
import { expandOpenApi } from './openapi-expand.js';
import { atEntries } from './openapi-spread.js';

const anything = fc.jsonValue({ maxDepth: 2 });
/** Mostly what the field should hold (`right`), sometimes any JSON. */
const mostly = <T>(right: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 15, arbitrary: right }, anything as fc.Arbitrary<unknown>);

/** JSON Schemas as documents write them: typed, nested, referenced, or wrong. */
const { schema } = fc.letrec<{ schema: unknown }>((tie) => {
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
      { weight: 24, arbitrary: typed },
      { weight: 24, arbitrary: object },
      { weight: 12, arbitrary: tie('schema').map((items) => ({ type: 'array', items })) },
      {
        weight: 4,
        arbitrary: fc
          .array(tie('schema'), { minLength: 1, maxLength: 2 })
          .map((oneOf) => ({ oneOf })),
      },
      { weight: 12, arbitrary: fc.constant({ $ref: '#/components/schemas/Order' }) },
      // A reference to nothing, and anything at all: rarer (each may refuse the whole document).
      { weight: 1, arbitrary: fc.constant({ $ref: '#/components/schemas/None' }) },
      { weight: 2, arbitrary: anything },
    ),
  };
});

const parameter = fc.record(
  {
    name: mostly(fc.constantFrom('id', 'order_id', 'q', 'X-Trace', 'page[size]', '')),
    in: mostly(fc.constantFrom('path', 'query', 'header', 'cookie', 'body')),
    required: mostly(fc.boolean()),
    schema,
    style: fc.constantFrom('form', 'simple', 'deepObject', 'spaceDelimited', 'matrix'),
    explode: fc.boolean(),
  },
  { requiredKeys: ['name', 'in'] },
);

const operation = fc.record(
  {
    operationId: mostly(fc.constantFrom('getOrder', 'listItems', 'get order', 'x'.repeat(80))),
    summary: mostly(fc.string({ maxLength: 20 })),
    parameters: mostly(fc.array(mostly(parameter), { maxLength: 3 })),
    requestBody: mostly(
      fc.record(
        {
          required: fc.boolean(),
          content: mostly(
            fc.dictionary(
              fc.constantFrom(
                'application/json',
                'application/x-www-form-urlencoded',
                'multipart/form-data',
                'text/plain',
                'application/xml',
              ),
              fc.record({ schema }, { requiredKeys: [] }),
              { maxKeys: 2 },
            ),
          ),
        },
        { requiredKeys: [] },
      ),
    ),
    tags: mostly(fc.array(fc.string({ maxLength: 6 }), { maxLength: 2 })),
    deprecated: fc.boolean(),
    security: mostly(fc.constantFrom([{ key: [] }], [])),
  },
  { requiredKeys: [] },
);

/** OpenAPI 3 documents, each field right or not: what services publish, mistakes included. */
const document = fc.record(
  {
    openapi: mostly(fc.constantFrom('3.0.3', '3.1.0')),
    info: mostly(fc.constant({ title: 'Orders', version: '1' })),
    servers: mostly(
      fc.oneof(
        { weight: 6, arbitrary: fc.constant([{ url: 'https://api.example.com/v1' }]) },
        fc.constantFrom(
          [],
          [{ url: '/v2' }],
          [{ url: 'ftp://x' }, { url: 'https://b.example.com' }],
        ),
        fc.array(fc.record({ url: anything }), { maxLength: 2 }),
      ),
    ),
    paths: mostly(
      fc.dictionary(
        fc.constantFrom('/orders/{id}', '/items', '/a/{b}/{c}', 'no-slash', '/{order_id}'),
        mostly(
          fc.dictionary(
            fc.constantFrom('get', 'post', 'put', 'delete', 'patch', 'parameters', 'x-ext'),
            mostly(operation),
            { maxKeys: 3 },
          ),
        ),
        { maxKeys: 3 },
      ),
    ),
    components: mostly(
      fc.record({
        schemas: fc.record({ Order: schema }),
        securitySchemes: mostly(
          fc.constant({ key: { type: 'apiKey', in: 'header', name: 'X-Key' } }),
        ),
      }),
    ),
  },
  { requiredKeys: ['openapi', 'paths', 'components'] },
);

/** Documents drawn (CHAOS_RUNS more). */
const RUNS = Number(process.env.CHAOS_RUNS ?? 300);

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

/**
 * Whatever OpenAPI document an entry names, it makes HTTP tools that are taken or refused as any
 * definition is, or is refused naming the file, the entry and the field: never another error (a
 * TypeError while the tools load would fail start-up, or a POST /api/tools, without saying where).
 */
describe('OpenAPI entries over any document', () => {
  const dir = mkdtempSync(join(tmpdir(), 'openapi-any-'));
  let n = 0;

  it(
    'make tools or are refused naming the entry and field, never fail otherwise',
    async () => {
      const outcomes = new Set<string>();
      await fc.assert(
        fc.asyncProperty(document, entry, async (doc, which) => {
          const file = `doc-${++n}.json`;
          writeFileSync(join(dir, file), JSON.stringify(doc));
          const input = [{ type: 'openapi', spec: file, ...which }];
          try {
            const { definitions, placeOf, groups } = await expandOpenApi(input, 'tools.json', {
              baseDir: dir,
              timeoutMs: 1000,
            });
            try {
              validateToolDefinitions(definitions, 'tools.json');
            } catch (error) {
              // As the loader says it: of the entry's place in the file, not the tool's in the set.
              if (!(error instanceof ToolDefinitionError)) throw error;
              throw new ToolDefinitionError(
                atEntries(error.message, 'tools.json', placeOf, groups),
              );
            }
            outcomes.add('taken');
          } catch (error) {
            if (!(error instanceof ToolDefinitionError)) throw error;
            expect(error.message).toMatch(/^tools\.json: (tool #0|duplicate|the array holds no)/);
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

describe('an operation whose arguments make no valid JSON Schema', () => {
  const dir = mkdtempSync(join(tmpdir(), 'openapi-bad-schema-'));
  writeFileSync(
    join(dir, 'orders.json'),
    JSON.stringify({
      openapi: '3.0.3',
      servers: [{ url: 'https://api.example.com' }],
      paths: {
        '/orders': { get: { operationId: 'listOrders' } },
        '/orders/find': {
          get: {
            operationId: 'findOrder',
            parameters: [
              {
                name: 'q',
                in: 'query',
                schema: { type: 'object', properties: { a: { type: 'integer', minimum: 'none' } } },
              },
            ],
          },
        },
      },
    }),
  );
  const expand = (entry: Record<string, unknown>) =>
    expandOpenApi([{ type: 'openapi', spec: 'orders.json', ...entry }], 'tools.json', {
      baseDir: dir,
      timeoutMs: 1000,
    });

  it('is left out of an entry for every operation, with a warning, the others made', async () => {
    const out = await expand({ operations: '*' });
    expect((out.definitions as { name: string }[]).map((d) => d.name)).toEqual(['listOrders']);
    expect(out.warnings).toEqual([
      expect.stringMatching(
        /^tools\.json: tool #0 'findOrder': field 'parameters' is required: the operation's arguments make a schema that is not a valid JSON Schema: .*; the operation is left out of the entry's tools$/,
      ),
    ]);
  });

  it("refuses an entry for it alone, saying the document's schema is at fault", async () => {
    await expect(expand({ operation: 'findOrder' })).rejects.toThrow(
      /^tools\.json: tool #0 'findOrder': field 'parameters' is required: the operation's arguments make a schema that is not a valid JSON Schema/,
    );
    // Given its own parameters, the tool is made.
    const own = { type: 'object', properties: { q: { type: 'string' } } };
    const out = await expand({ operation: 'findOrder', parameters: own });
    expect(out.definitions).toEqual([
      expect.objectContaining({ name: 'findOrder', parameters: own }),
    ]);
  });
});
