import fc from 'fast-check';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  anyDocumentLoads,
  anything,
  paths,
  rightBut,
  schemas,
} from '../../../test/support/openapi-documents.js';
import { expandOpenApi } from './openapi-expand.js';

const schema = schemas('#/components/schemas/');
/** Any JSON once in 30 fields: enough of a document right for tools to be made. */
const mostly = rightBut(30);

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
    paths: paths(mostly, operation, parameter),
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

anyDocumentLoads('OpenAPI entries over any document', document);

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
