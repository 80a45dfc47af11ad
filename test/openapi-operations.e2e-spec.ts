import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { sseCall, sseText } from './support/fake-llm.js';
import { useDownPublisher } from './support/publisher.js';
import { postTools, refusedTools, writeToolsFile } from './support/tools-file.js';
import { offeredNames, useClientPerTest, useEngineRig } from './support/turn-harness.js';
import { untilAsync } from './support/waiting.js';

const SHOP = resolve('test/fixtures/openapi/shop.yaml');

/**
 * An OpenAPI entry for all of a document's operations (`"operations": "*"`), or those listed:
 * one entry, and the API's every operation is a tool, named after it.
 */
describe("OpenAPI entries for a document's operations", () => {
  const rig = useEngineRig((base) => ({
    LLM_MODEL: 'm',
    LLM_CLOCK: 'off',
    TOOL_SECRET_SHOP: 'shop-key-1',
    LLM_TOOLS_FILE: writeToolsFile([
      {
        type: 'openapi',
        spec: SHOP,
        operations: '*',
        prefix: 'shop_',
        base_url: `${base}/api`,
        api_key: '${TOOL_SECRET_SHOP}',
      },
      // An operation the set gives an entry of its own: the entry for all leaves it to this one.
      {
        type: 'openapi',
        name: 'add_to_cart',
        spec: SHOP,
        operation: 'addToCart',
        base_url: `${base}/api`,
        api_key: '${TOOL_SECRET_SHOP}',
        description: "Adds a product to the caller's cart.",
      },
    ]),
  }));
  const client = useClientPerTest(rig);
  const api = (path: string) => fetch(`${rig.engine.httpUrl}${path}`);

  it('offers each operation as a tool, named after it, and sends each its request with the key where its security says', async () => {
    rig.tools.respond((req, res) => res.end(`${req.method} ${req.url}`));
    rig.llm.enqueue(
      sseCall('c1', 'shop_get_products_sku', { sku: 'A7' }),
      sseCall('c2', 'shop_shopStatus'),
      sseText(['A7 is a teapot, and the shop is open.']),
    );
    await client.ws.turn('what is A7, and are you open?');
    // Not the deprecated operation, nor the upload it cannot send; addToCart as its own entry says.
    expect(rig.llm.offered(0)).toEqual([
      'shop_searchProducts',
      'shop_get_products_sku',
      'shop_shopStatus',
      'add_to_cart',
    ]);
    const tools = rig.llm.requests[0]!.body.tools.map((t: any) => t.function);
    expect(tools[1]).toEqual({
      name: 'shop_get_products_sku',
      description: 'One product by its SKU',
      parameters: {
        type: 'object',
        properties: { sku: { type: 'string' } },
        required: ['sku'],
      },
    });
    expect(tools[3].description).toBe("Adds a product to the caller's cart.");
    const [product, status] = rig.tools.requests;
    expect([product!.url, status!.url]).toEqual(['/api/products/A7', '/api/status']);
    // The operations that take a key get it; the one whose security is none does not.
    expect(product!.headers['x-shop-key']).toBe('shop-key-1');
    expect(status!.headers['x-shop-key']).toBeUndefined();
    const read = rig.llm.requests[2]!.body.messages.filter((m: any) => m.role === 'tool');
    expect(read.map((m: any) => m.content)).toEqual(['GET /api/products/A7', 'GET /api/status']);
  });

  it('shows each tool the entry became as an entry of its own, which a set posted back keeps', async () => {
    const listed = (await (await api('/api/tools')).json()) as any;
    expect(listed.tools[1]).toEqual({
      type: 'openapi',
      spec: SHOP,
      base_url: `${rig.toolsUrl}/api`,
      api_key: '${TOOL_SECRET_SHOP}',
      name: 'shop_get_products_sku',
      operation: 'GET /products/{sku}',
    });
    expect(listed.tools[2]).not.toHaveProperty('api_key');
    // What the loading left out, for admin tooling to read: as the log says it.
    expect(listed.warnings).toEqual([
      expect.stringMatching(
        /tools\.json: tool #0: deprecated operations are left out \(list them in 'operations' to take them\): emptyCart$/,
      ),
      expect.stringMatching(
        /tools\.json: tool #0 'shop_uploadImage': field 'operation': its request body is neither JSON, a form nor text \(application\/octet-stream\); the operation is left out of the entry's tools$/,
      ),
    ]);
    const dry = await fetch(`${rig.engine.httpUrl}/api/tools?dry_run=true`, {
      method: 'POST',
      body: JSON.stringify([{ type: 'openapi', spec: SHOP, operations: '*', tags: ['cart'] }]),
    });
    expect(await dry.json()).toMatchObject({
      dry_run: true,
      tools: [{ name: 'addToCart', operation: 'addToCart' }],
      warnings: [
        "request body: tool #0: deprecated operations are left out (list them in 'operations' to take them): emptyCart",
      ],
    });
    const described = (await (await api('/api/tools/shop_searchProducts/offered')).json()) as any;
    expect(described.description).toBe('Products whose name or description holds the words');
    // Refusals name the entry's place, also after an entry that became several tools.
    const message = await refusedTools(rig.engine.httpUrl, [
      listed.tools[0],
      { type: 'openapi', spec: SHOP, operations: '*', base_url: `${rig.toolsUrl}/api` },
      { name: 'lookup', url: 'ftp://x', method: 'GET' },
    ]);
    expect(message).toMatch(/^request body: tool #2 'lookup': field 'url'/);
    expect(
      await refusedTools(rig.engine.httpUrl, [
        { type: 'openapi', spec: SHOP, operations: ['getProduct'] },
      ]),
    ).toContain(
      `request body: tool #0: field 'operations': the document has no operation "getProduct"`,
    );
    // Entries that make no tool at all: refused with why, not as an empty set.
    expect(
      await refusedTools(rig.engine.httpUrl, [
        { type: 'openapi', spec: SHOP, operations: '*', tags: ['nothing-tagged-so'] },
      ]),
    ).toBe(
      "request body: its entries make no tool: tool #0: the entry for the document's operations makes none: each is deprecated, or left out by its 'tags', 'methods' or 'exclude'",
    );
    const res = await postTools(rig.engine.httpUrl, listed.tools);
    expect(res.status).toBe(200);
    expect(await offeredNames(rig, client.ws)).toEqual([
      'shop_searchProducts',
      'shop_get_products_sku',
      'shop_shopStatus',
      'add_to_cart',
    ]);
  });
});

/** A large API searched for, not sent whole: the entry's tools are deferred. */
describe("a document's operations found by a search", () => {
  const rig = useEngineRig((base) => ({
    LLM_MODEL: 'm',
    LLM_CLOCK: 'off',
    LLM_TOOLS_FILE: writeToolsFile([
      { type: 'tool_search', name: 'find_tools' },
      {
        type: 'openapi',
        spec: SHOP,
        operations: '*',
        base_url: `${base}/api`,
        deferred: true,
      },
    ]),
  }));
  const client = useClientPerTest(rig);

  it('offers the operations a search found from the next request on', async () => {
    rig.llm.enqueue(
      sseCall('c1', 'find_tools', { query: 'products holding the words' }),
      sseCall('c2', 'searchProducts', { q: 'teapot' }),
      sseText(['We have two teapots.']),
    );
    await client.ws.turn('do you sell teapots?');
    expect(rig.llm.offered(0)).toEqual(['find_tools']);
    expect(rig.llm.offered(1)).toContain('searchProducts');
    expect(rig.tools.requests.map((r) => r.url)).toEqual(['/api/products?q=teapot']);
  });
});

/** The document at a URL that cannot be read at start-up: the entry waits, the engine does not. */
describe("a document's operations at a URL that is down at start-up", () => {
  const publisher = useDownPublisher(() => readFileSync(SHOP));
  const rig = useEngineRig((base) => ({
    LLM_MODEL: 'm',
    LLM_TOOL_BREAKER_COOLDOWN_SECS: '0.3',
    LLM_TOOLS_FILE: writeToolsFile([
      { name: 'get_weather', url: `${base}/{city}`, method: 'GET' },
      {
        type: 'openapi',
        spec: publisher.url,
        operations: ['searchProducts', 'shopStatus'],
        prefix: 'shop_',
        base_url: base,
      },
    ]),
  }));
  const client = useClientPerTest(rig);
  const offered = () => offeredNames(rig, client.ws);

  it('starts without its tools, and offers them once the document can be read', async () => {
    const health = async () =>
      ((await (await fetch(`${rig.engine.httpUrl}/health`)).json()) as any).tools.unavailable;
    expect(await offered()).toEqual(['get_weather']);
    expect(await health()).toEqual(['shop_*']);
    publisher.up = true;
    await untilAsync(async () => (await offered()).length > 1, 'the document read');
    expect(await offered()).toEqual(['get_weather', 'shop_searchProducts', 'shop_shopStatus']);
    expect(await health()).toEqual([]);
  });
});

/** A service that still publishes Swagger 2.0 (Springfox's): read as its OpenAPI 3 conversion. */
describe('a Swagger 2.0 document', () => {
  const LEGACY = resolve('test/fixtures/openapi/legacy-orders.yaml');
  const rig = useEngineRig(
    (base) => ({
      LLM_MODEL: 'm',
      TOOL_SECRET_ORDERS: 'orders-key-1',
      LLM_TOOLS_FILE: writeToolsFile([
        {
          type: 'openapi',
          spec: `${base}/swagger.yaml`,
          operations: ['createOrder', 'addNote'],
          base_url: `${base}/v1`,
          api_key: '${TOOL_SECRET_ORDERS}',
        },
      ]),
    }),
    (req, res) =>
      req.path === '/swagger.yaml'
        ? res.end(readFileSync(LEGACY))
        : res.end(`${req.method} ${req.url} ${req.body}`),
  );
  const client = useClientPerTest(rig);

  it('sends the body and the form its operations describe, with the key its security says', async () => {
    rig.llm.enqueue(
      sseCall('c1', 'createOrder', { item: 'tea', quantity: 2 }),
      sseCall('c2', 'addNote', { id: '42', text: 'ring twice' }),
      sseText(['Done.']),
    );
    await client.ws.turn('two teas, and ring twice');
    const [order, note] = rig.tools.requests.filter((r) => r.path !== '/swagger.yaml');
    expect(order).toMatchObject({ method: 'POST', url: '/v1/orders' });
    expect(JSON.parse(order!.body)).toEqual({ item: 'tea', quantity: 2 });
    expect(order!.headers['x-api-key']).toBe('orders-key-1');
    expect(note).toMatchObject({
      method: 'POST',
      url: '/v1/orders/42/notes',
      body: 'text=ring%20twice',
    });
    expect(note!.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
  });
});
