import { Ajv } from 'ajv';
import { readFileSync } from 'node:fs';
import { toJsonSchema } from '../src/tools/openapi/openapi-schema.js';

/**
 * The committed openapi.json (test/tools-api.e2e-spec.ts keeps it equal to what /docs-json
 * serves) as OpenAPI tooling reads it: linters, generated clients, gateways that validate
 * requests against it.
 */
const doc = JSON.parse(readFileSync('openapi.json', 'utf8')) as {
  servers: { url: string }[];
  info: { license?: { name: string } };
  paths: Record<string, Record<string, { security?: unknown[]; requestBody?: any }>>;
  components: { schemas: Record<string, unknown> };
};

describe('openapi.json', () => {
  it('names a server, a license, and for every operation the keys it takes (none: [])', () => {
    expect(doc.servers).toEqual([{ url: '/', description: 'this engine' }]);
    expect(doc.info.license?.name).toBe('Apache-2.0');
    const unsaid = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, operation]) => !Array.isArray(operation.security))
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(unsaid).toEqual([]);
    expect(doc.paths['/health']!.get!.security).toEqual([]);
    expect(doc.paths['/api/tools']!.get!.security).toEqual([{ admin: [] }]);
  });

  it('describes each kind of tool definition by exactly one schema of its oneOf, as validators check it', () => {
    const body = doc.paths['/api/tools']!.post!.requestBody.content['application/json'].schema;
    const alternatives = (body.items?.oneOf ?? body.oneOf) as { $ref: string }[];
    // OpenAPI 3.0's schemas, in JSON Schema's terms (its boolean exclusiveMinimum).
    const schemas = Object.fromEntries(
      Object.entries(doc.components.schemas).map(([k, v]) => [
        k,
        toJsonSchema(v as Record<string, unknown>),
      ]),
    );
    const ajv = new Ajv({ strict: false, validateSchema: false });
    const checks = alternatives.map((alt) =>
      ajv.compile({ components: { schemas }, $ref: alt.$ref }),
    );
    const definitions = [
      { name: 'get_weather', url: 'https://wttr.in/{city}' },
      { type: 'http', name: 'get_weather', url: 'https://wttr.in/{city}' },
      { type: 'mcp', name: 'lookup_order', url: 'https://crm.internal/mcp' },
      { type: 'mcp', name: 'now', command: 'uvx', args: ['mcp-server-time'] },
      { type: 'python', code: 'def f():\n    return 1' },
      { type: 'openapi', spec: 'specs/orders.yaml', operation: 'getOrder' },
      { type: 'end_session', name: 'end_call' },
      { type: 'transfer_call', name: 'to_desk', destination: '+15550100' },
    ];
    for (const definition of definitions)
      expect([definition, checks.filter((check) => check(definition)).length]).toEqual([
        definition,
        1,
      ]);
  });
});
