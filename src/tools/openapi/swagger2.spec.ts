import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expandOpenApi } from './openapi-expand.js';
import { fromSwagger2 } from './swagger2.js';
import type { OpenApiSpec } from './openapi-operation.js';

const options = { baseDir: 'test/fixtures/openapi', timeoutMs: 1000 };

/** The tools tools.json's entry for every operation of `legacy-orders.yaml` (Swagger 2.0) makes. */
async function made(): Promise<Record<string, any>> {
  const out = await expandOpenApi(
    [
      {
        type: 'openapi',
        spec: 'legacy-orders.yaml',
        operations: '*',
        api_key: '${TOOL_SECRET_ORDERS}',
      },
    ],
    'tools.json',
    options,
  );
  expect(out.warnings).toEqual([]);
  return Object.fromEntries((out.definitions as any[]).map((d) => [d.name, d]));
}

describe('a Swagger 2.0 document', () => {
  it('makes the tools its OpenAPI 3 conversion describes: server, parameters, styles and key', async () => {
    const tools = await made();
    expect(Object.keys(tools)).toEqual([
      'getOrder',
      'createOrder',
      'addNote',
      'getCategory',
      'saveCategory',
    ]);
    // host, basePath and schemes are the server.
    expect(tools.getOrder).toMatchObject({
      url: 'https://orders.example.com/v1/orders/{id}',
      method: 'GET',
      description: 'An order by its number',
      headers: { 'X-Api-Key': '${TOOL_SECRET_ORDERS}' },
      query_styles: { fields: { style: 'form', explode: false } },
      parameters: {
        type: 'object',
        properties: {
          id: { type: 'string', description: 'The order number' },
          fields: { type: 'array', items: { type: 'string' } },
        },
        required: ['id'],
      },
    });
  });

  it('takes a body parameter as the JSON body, and formData as a form', async () => {
    const tools = await made();
    expect(tools.createOrder).toMatchObject({
      url: 'https://orders.example.com/v1/orders',
      method: 'POST',
      parameters: {
        properties: {
          item: { type: 'string', description: 'What to order' },
          quantity: { type: 'integer', minimum: 1 },
        },
        required: ['item'],
      },
    });
    expect(tools.addNote).toMatchObject({
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      parameters: { properties: { text: { type: 'string' } }, required: ['id', 'text'] },
    });
  });

  it('offers a recursive definition with its $defs', async () => {
    const { saveCategory } = await made();
    expect(saveCategory.parameters.properties.children).toEqual({
      type: 'array',
      items: { $ref: '#/$defs/Category' },
    });
    expect(saveCategory.parameters.$defs.Category.properties.children.items).toEqual({
      $ref: '#/$defs/Category',
    });
  });
});

describe("a Swagger 2.0 document's place, written with a slip", () => {
  const dir = mkdtempSync(join(tmpdir(), 'swagger2-place-'));
  /** The URL of the one tool made from a document with `place` (host, basePath, schemes). */
  async function urlOf(place: Record<string, unknown>): Promise<string> {
    const file = `doc-${Object.values(place).join('-').replace(/\W/g, '')}.json`;
    const paths = { '/orders': { get: { operationId: 'listOrders' } } };
    writeFileSync(join(dir, file), JSON.stringify({ swagger: '2.0', ...place, paths }));
    const out = await expandOpenApi(
      [{ type: 'openapi', spec: file, operations: '*' }],
      'tools.json',
      {
        baseDir: dir,
        timeoutMs: 1000,
      },
    );
    return (out.definitions as { url: string }[])[0]!.url;
  }

  it('takes a host written with its scheme as the host, the scheme its schemes if none given', async () => {
    expect(await urlOf({ host: 'https://api.example.com/', basePath: '/v1' })).toBe(
      'https://api.example.com/v1/orders',
    );
    expect(await urlOf({ host: 'http://api.example.com', schemes: ['https'] })).toBe(
      'https://api.example.com/orders',
    );
  });

  it('takes a basePath with no leading slash as the path it names', async () => {
    expect(await urlOf({ host: 'api.example.com', basePath: 'v1', schemes: ['https'] })).toBe(
      'https://api.example.com/v1/orders',
    );
  });

  it('takes its https server when a WebSocket scheme is listed first', async () => {
    expect(await urlOf({ host: 'api.example.com', schemes: ['wss', 'https'] })).toBe(
      'https://api.example.com/orders',
    );
  });

  it("is refused in the engine's words when the converter fails, its stack never printed", async () => {
    const printed = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      // A slip the document's check (document-shape.ts) refuses before conversion; here the
      // converter trips on it.
      const document = {
        swagger: '2.0',
        info: { title: 'Orders', version: '1' },
        host: 'api.example.com',
        paths: {
          '/orders': {
            post: {
              consumes: 5,
              parameters: [{ in: 'formData', name: 'item', type: 'string' }],
              responses: { 200: { description: 'ok' } },
            },
          },
        },
      } as unknown as OpenApiSpec;
      await expect(fromSwagger2(document)).rejects.toThrow(
        /^its conversion to OpenAPI 3 failed: .*filter is not a function/,
      );
      expect(printed).not.toHaveBeenCalled();
      // Warnings of anything else still reach the console once the conversion is done.
      console.warn('other');
      expect(printed).toHaveBeenCalledWith('other');
    } finally {
      printed.mockRestore();
    }
  });

  it('keeps a "__proto__" key of a value (a default, an example) as a key, not as a prototype', async () => {
    // Found by the fuzz suite: the converter's copy of such an object lost its prototype, and
    // the conversion failed with "object.hasOwnProperty is not a function" ({"__proto__": null}).
    const document = JSON.parse(`{
      "swagger": "2.0", "info": { "title": "Orders", "version": "1" }, "host": "api.example.com",
      "paths": {},
      "definitions": { "Order": { "type": "object", "default": { "": 0, "__proto__": { "a": 1 } } } }
    }`) as OpenApiSpec;
    const converted = (await fromSwagger2(document)) as any;
    const value = converted.components.schemas.Order.default;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(['', '__proto__']);
    expect(Object.getOwnPropertyDescriptor(value, '__proto__')?.value).toEqual({ a: 1 });
    expect(JSON.stringify(converted)).not.toContain('\\u0000');
  });
});
