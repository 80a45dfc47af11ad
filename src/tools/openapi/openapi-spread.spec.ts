import { expandOpenApi, type ExpandOptions } from './openapi-expand.js';
import { atEntries } from './openapi-spread.js';
import { spreadOperations } from './openapi-operations.js';
import { operationTool } from './openapi-operation.js';
import { expandRefusal } from '../../../test/support/openapi-expand.js';

const options = { baseDir: 'test/fixtures/openapi', timeoutMs: 1000 };
const group = { type: 'openapi', spec: 'shop.yaml', operations: '*' };

/** The definitions expanding `input` (entries of tools.json) makes, and its warnings. */
async function expand(input: unknown[], more: Partial<ExpandOptions> = {}) {
  const out = await expandOpenApi(input, 'tools.json', { ...options, ...more });
  return { ...out, made: out.definitions as Record<string, any>[] };
}

const refusal = (input: unknown[]) => expandRefusal(input, options);

describe('expandOpenApi: an entry for several operations', () => {
  it("makes one tool per operation at the entry's place, leaving out the deprecated and those it cannot make", async () => {
    const before = { name: 'first', url: 'http://h/' };
    const out = await expand([before, { ...group, prefix: 'shop_', timeout_secs: 5 }, before]);
    expect(out.made.map((d) => d.name)).toEqual([
      'first',
      'shop_searchProducts',
      'shop_get_products_sku',
      'shop_addToCart',
      'shop_shopStatus',
      'first',
    ]);
    expect(out.placeOf).toEqual([0, 1, 1, 1, 1, 2]);
    expect(out.made[2]).toMatchObject({
      method: 'GET',
      url: 'https://shop.example.com/api/products/{sku}',
      description: 'One product by its SKU',
      timeout_secs: 5,
    });
    // What GET /api/tools shows: an entry of its own for each, as one would write it.
    expect(out.origins.get(2)).toEqual({
      type: 'openapi',
      spec: 'shop.yaml',
      timeout_secs: 5,
      name: 'shop_get_products_sku',
      operation: 'GET /products/{sku}',
    });
    expect(out.warnings).toEqual([
      "tools.json: tool #1: deprecated operations are left out (list them in 'operations' to take them): emptyCart",
      "tools.json: tool #1 'shop_uploadImage': field 'operation': its request body is neither JSON, a form nor text (application/octet-stream); the operation is left out of the entry's tools",
    ]);
  });

  it('takes the operations listed, deprecated ones too, and refuses one that cannot be a tool', async () => {
    const out = await expand([{ ...group, operations: ['emptyCart', 'GET /products'] }]);
    // In the order listed.
    expect(out.made.map((d) => d.name)).toEqual(['emptyCart', 'searchProducts']);
    expect(out.warnings).toEqual([]);
    expect(await refusal([{ ...group, operations: ['uploadImage'] }])).toMatch(
      /^tools\.json: tool #0 'uploadImage': field 'operation': its request body is neither JSON/,
    );
    expect(await refusal([{ ...group, operations: ['nope'] }])).toContain(
      `tools.json: tool #0: field 'operations': the document has no operation "nope" (give operationIds or "METHOD /path"; it has: searchProducts, GET /products/{sku}, uploadImage`,
    );
  });

  it('takes only the operations of the tags and methods given', async () => {
    const out = await expand([{ ...group, tags: ['cart'] }]);
    expect(out.made.map((d) => d.name)).toEqual(['addToCart']);
    // The reads alone: an assistant that may look things up and change nothing.
    const reads = await expand([{ ...group, methods: ['GET'] }]);
    expect(reads.made.map((d) => [d.name, d.method])).toEqual([
      ['searchProducts', 'GET'],
      ['get_products_sku', 'GET'],
      ['shopStatus', 'GET'],
    ]);
    expect(reads.warnings).toEqual([]);
    const catalogWrites = await expand([{ ...group, tags: ['catalog'], methods: ['PUT', 'POST'] }]);
    expect(catalogWrites.made).toEqual([]);
    expect(catalogWrites.warnings).toContain(
      "tools.json: tool #0 'uploadImage': field 'operation': its request body is neither JSON, a form nor text (application/octet-stream); the operation is left out of the entry's tools",
    );
  });

  it('leaves out the operations excluded, refusing a name that names none', async () => {
    const out = await expand([{ ...group, exclude: ['uploadImage', 'GET /products/{sku}'] }]);
    expect(out.made.map((d) => d.name)).toEqual(['searchProducts', 'addToCart', 'shopStatus']);
    expect(out.warnings.join('\n')).not.toContain('uploadImage');
    const reads = ['searchProducts', 'GET /products/{sku}', 'shopStatus'];
    const none = await expand([{ ...group, methods: ['GET'], exclude: reads }]);
    expect(none.made).toEqual([]);
    expect(none.warnings).toContain(
      "tools.json: tool #0: the entry for the document's operations makes none: each is deprecated, or left out by its 'tags', 'methods' or 'exclude'",
    );
    expect(await refusal([{ ...group, exclude: ['deleteEverything'] }])).toContain(
      `tools.json: tool #0: field 'exclude': the document has no operation "deleteEverything"`,
    );
    expect(await refusal([{ ...group, operations: ['shopStatus'], exclude: ['x'] }])).toContain(
      "tools.json: tool #0: field 'exclude' chooses among all the operations",
    );
  });

  it('gives a deferred operation its tags as keywords, for a search to find it by', async () => {
    const out = await expand([{ ...group, deferred: true, keywords: ['shop'] }]);
    expect(out.made.map((d) => d.keywords)).toEqual([
      ['shop', 'catalog'],
      ['shop', 'catalog'],
      ['shop', 'cart'],
      ['shop'],
    ]);
    expect((await expand([group])).made[0]).not.toHaveProperty('keywords');
  });

  it('leaves to an entry of its own the operation it names, or its name', async () => {
    const own = { type: 'openapi', spec: 'shop.yaml', operation: 'POST /carts/{cart_id}/items' };
    const named = { name: 'shopStatus', url: 'http://h/status' };
    const out = await expand([{ ...group, confirm: true }, own, named, group]);
    expect(out.made.map((d) => d.name)).toEqual([
      'searchProducts',
      'get_products_sku',
      'addToCart',
      'shopStatus',
    ]);
    expect(out.made[0]!.confirm).toBe(true);
    expect(out.made[2]!.confirm).toBeUndefined();
    // An entry of its own for the operation is the admin's choice; another tool of its name is not.
    expect(out.warnings).toContain(
      "tools.json: tool #0: operations are left out whose names other entries have (give a 'prefix'): shopStatus (shopStatus)",
    );
    expect(out.warnings.join('\n')).not.toContain('addToCart');
    // The same document twice: the second entry's tools are the first's already.
    expect(out.warnings).toContain(
      "tools.json: tool #3: the entry for the document's operations makes none: the set has an entry of its own for each",
    );
  });

  it('gives the key only to the operations whose security takes one', async () => {
    const out = await expand([{ ...group, api_key: '${TOOL_SECRET_SHOP}' }]);
    const byName = Object.fromEntries(out.made.map((d) => [d.name, d]));
    expect(byName.searchProducts.headers).toEqual({ 'X-Shop-Key': '${TOOL_SECRET_SHOP}' });
    expect(byName.shopStatus.headers).toEqual({});
    expect(out.origins.get(3)).not.toHaveProperty('api_key');
    expect(out.origins.get(0)).toHaveProperty('api_key', '${TOOL_SECRET_SHOP}');
    expect(
      await refusal([{ ...group, tags: ['cart'], oauth2: { client_id: 'a', client_secret: 'b' } }]),
    ).toContain(
      "tools.json: tool #0: field 'oauth2.token_url' is required: the security of none of its operations declares",
    );
    expect(await refusal([{ ...group, api_key: { other: 'k' } }])).toContain(
      "tools.json: tool #0: field 'api_key.other' names no apiKey or HTTP bearer scheme of the document (it has: shopKey)",
    );
  });

  it.each([
    [{ ...group, name: 'x' }, "field 'name' is not for an entry of several operations"],
    [{ ...group, operation: 'x' }, "field 'operation' is not for an entry of several operations"],
    [{ ...group, parameters: {} }, "field 'parameters' is not for an entry of several operations"],
    [
      { ...group, operations: ['a'], tags: ['cart'] },
      "field 'tags' chooses among all the operations",
    ],
    [
      { ...group, operations: ['a'], methods: ['GET'] },
      "field 'methods' chooses among all the operations",
    ],
    [
      { ...group, methods: ['get'] },
      "field 'methods.0' is invalid: expected an array of HTTP methods",
    ],
    [{ ...group, operations: [] }, "field 'operations' is invalid"],
    [{ ...group, prefix: 'a b' }, "field 'prefix' is invalid"],
    [
      { type: 'openapi', spec: 'shop.yaml', operation: 'shopStatus', prefix: 'a' },
      "field 'prefix' is for an entry of several operations ('operations'), which this one is not",
    ],
    [{ type: 'openapi', spec: 'shop.yaml' }, "field 'operation' is required (or 'operations'"],
  ])('refuses %j naming the field', async (def, message) => {
    expect(await refusal([def])).toContain(`tools.json: tool #0: ${message}`);
  });

  it('leaves the entry pending, as itself, when its document at a URL cannot be read', async () => {
    const down = { ...group, spec: 'http://127.0.0.1:1/shop.yaml', prefix: 'shop_' };
    const out = await expand([{ name: 'a', url: 'http://h/' }, down], { defer: 'unusable' });
    expect(out.made).toHaveLength(2);
    expect(out.groups).toEqual(new Map([[1, 'shop_']]));
    expect(out.origins.get(1)).toBe(down);
    expect(out.pending.get(1)).toMatch(/^its document cannot be read as an OpenAPI document/);
    expect(await refusal([down])).toContain("tools.json: tool #0: field 'spec' cannot be read");
  });
});

describe('atEntries', () => {
  it('names the place of the entry each definition came from', () => {
    expect(
      atEntries(
        "tools.json: tool #3 'b': field 'name' duplicates tool #1",
        'tools.json',
        [0, 1, 1, 2],
      ),
    ).toBe("tools.json: tool #2 'b': field 'name' duplicates tool #1");
    expect(atEntries('tools.json: tool #1', 'tools.json', [0, 1])).toBe('tools.json: tool #1');
    // An entry for several operations whose document is unread, by its name.
    expect(
      atEntries(
        "tools.json: tool #2 '-openapi-1': field 'x'",
        'tools.json',
        [0, 1, 2],
        new Map([[1, 'shop_']]),
      ),
    ).toBe("tools.json: tool #2 'shop_*': field 'x'");
  });
});

describe('spreadOperations', () => {
  it('names an operation after its method and path without an id, and tells two alike apart', () => {
    const spec = {
      paths: {
        '/a': { get: { operationId: 'a.b' }, post: { operationId: 'a_b' } },
        '/users/{id}/cards': { delete: {} },
      },
    };
    const spread = spreadOperations(
      { type: 'openapi', spec: 's.yaml', operations: '*', prefix: 'p_' },
      spec,
      () => undefined,
      new Set(),
      'tools.json: tool #0',
    );
    expect(spread.entries.map((e) => e.entry.name)).toEqual([
      'p_a_b',
      'p_a_b_2',
      'p_delete_users_id_cards',
    ]);
    expect(spread.entries[2]!.entry.operation).toBe('DELETE /users/{id}/cards');
  });

  it('names by its route an operation whose operationId the document gives twice', () => {
    const spec = {
      paths: { '/a': { get: { operationId: 'list' } }, '/b': { get: { operationId: 'list' } } },
    };
    const spread = spreadOperations(
      { type: 'openapi', spec: 's.yaml', operations: '*' },
      spec,
      () => undefined,
      new Set(),
      'tools.json: tool #0',
    );
    expect(spread.entries.map((e) => [e.entry.name, e.entry.operation])).toEqual([
      ['list', 'GET /a'],
      ['list_2', 'GET /b'],
    ]);
  });

  it('takes a key all of whose operations have entries of their own', () => {
    const spec = {
      components: { securitySchemes: { k: { type: 'apiKey', in: 'header', name: 'X-K' } } },
      security: [{ k: [] }],
      paths: { '/a': { get: { operationId: 'a' } } },
    };
    const spread = spreadOperations(
      { type: 'openapi', spec: 's.yaml', operations: '*', api_key: 'key' },
      spec,
      () => 'operation',
      new Set(),
      'tools.json: tool #0',
    );
    expect(spread.entries).toEqual([]);
  });
});

describe('an operation the document leaves undescribed', () => {
  it('is described by its method and path', async () => {
    const out = await expand([{ ...group, operations: ['shopStatus'] }]);
    expect(out.made[0]!.description).toBe('Whether the shop takes orders now');
    const bare = { servers: [{ url: 'http://h' }], paths: { '/ping': { get: {} } } };
    expect(operationTool(bare, 'GET /ping').description).toBe('GET /ping');
  });
});
