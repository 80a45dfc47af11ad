import { expandOpenApi } from './openapi-expand.js';

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
