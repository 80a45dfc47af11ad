import { dereference } from '@apidevtools/json-schema-ref-parser';
import { OperationError, operationTool, type OpenApiSpec } from './openapi-operation.js';

const FIXTURE = 'test/fixtures/openapi/orders.yaml';

describe('operationTool', () => {
  let spec: OpenApiSpec;
  beforeAll(async () => {
    spec = await dereference<OpenApiSpec>(FIXTURE, {
      resolve: { http: false },
      dereference: { circular: 'ignore' },
    });
  });

  it('makes a GET operation a tool: path placeholders, query arguments, the server variables at their defaults', () => {
    expect(operationTool(spec, 'getOrder')).toEqual({
      url: 'https://eu.orders.example.com/v1/orders/{order_id}',
      method: 'GET',
      description: 'Status of an order\n\nCall it when the caller asks where an order is.',
      parameters: {
        type: 'object',
        properties: {
          order_id: { type: 'string', description: 'The order number' },
          fields: { type: 'string' },
        },
        required: ['order_id'],
      },
      headers: {},
      queryStyles: {},
      placeholderStyles: {},
      operationId: 'getOrder',
      skipped: ["header parameter 'X-Request-Source'"],
    });
  });

  it('merges a JSON body (allOf) into the arguments; a POST takes its required query parameters as placeholders', () => {
    const made = operationTool(spec, 'POST /orders', 'http://127.0.0.1:9/api/');
    expect(made.url).toBe('http://127.0.0.1:9/api/orders?notify={notify}');
    expect(made.method).toBe('POST');
    expect(made.parameters).toEqual({
      type: 'object',
      properties: {
        notify: { type: 'boolean' },
        item: { type: 'string', description: 'What to order' },
        quantity: { type: 'integer', minimum: 1 },
      },
      required: ['notify', 'item', 'quantity'],
    });
    expect(made.skipped).toEqual(["query parameter 'coupon'"]);
  });

  it("writes a query parameter's array or object as its style says (form, exploded, by default)", () => {
    expect(operationTool(spec, 'listOrders').queryStyles).toEqual({
      status: { style: 'form' },
      ids: { style: 'form', explode: false },
      created: { style: 'deepObject', explode: true },
    });
  });

  it("writes a path or header parameter's array or object as its style says (simple by default)", () => {
    const inline: OpenApiSpec = {
      servers: [{ url: 'https://api.example.com' }],
      paths: {
        '/shapes/{ids}/{point}{filter}': {
          get: {
            operationId: 'shapes',
            parameters: [
              { name: 'ids', in: 'path', required: true, schema: { type: 'array' } },
              {
                name: 'point',
                in: 'path',
                required: true,
                style: 'label',
                schema: { type: 'object' },
              },
              {
                name: 'filter',
                in: 'path',
                required: true,
                style: 'matrix',
                explode: true,
                schema: { type: 'string' },
              },
              {
                name: 'X-Tags',
                in: 'header',
                required: true,
                explode: true,
                schema: { type: 'object' },
              },
              { name: 'X-Plain', in: 'header', required: true, schema: { type: 'string' } },
            ],
          },
        },
      },
    };
    expect(operationTool(inline, 'shapes').placeholderStyles).toEqual({
      ids: { style: 'simple' },
      point: { style: 'label' },
      filter: { style: 'matrix', explode: true },
      'X-Tags': { style: 'simple', explode: true },
    });
  });

  it('sends a required header parameter from its argument', () => {
    const made = operationTool(spec, 'cancelOrder');
    expect(made.headers).toEqual({ 'X-Reason': '{X-Reason}' });
    expect(made.parameters.required).toEqual(['order_id', 'X-Reason']);
  });

  it('says why an operation cannot be a tool, naming the field', () => {
    const why = (ref: string, base?: string, doc: OpenApiSpec = spec) => {
      try {
        operationTool(doc, ref, base);
      } catch (error) {
        expect(error).toBeInstanceOf(OperationError);
        return `${(error as OperationError).field}: ${(error as Error).message}`;
      }
      throw new Error('no error');
    };
    expect(why('nope')).toMatch(
      /^operation: the spec has no operation "nope" .*it has: getOrder, cancelOrder, listOrders, create-order\.v2, saveTree, upload, printLabels, tagOrder\)$/,
    );
    expect(why('upload')).toBe(
      'operation: its request body is neither JSON nor a form (multipart/form-data)',
    );
    const relative = { ...spec, servers: [{ url: '/v1' }] };
    expect(why('getOrder', undefined, relative)).toBe(
      'base_url: is required: the spec\'s servers give no absolute http(s) URL ("/v1")',
    );
    expect(operationTool(relative, 'getOrder', 'http://x').url).toBe('http://x/orders/{order_id}');
  });
});

describe('operationTool on documents read from a URL, and odd names', () => {
  const doc = (path: string, parameters: unknown[]): OpenApiSpec => ({
    servers: [{ url: '/api/v2' }],
    paths: { [path]: { get: { operationId: 'op', parameters } } },
  });

  it("resolves a relative server URL against the document's", () => {
    const made = operationTool(
      doc('/items', []),
      'op',
      undefined,
      'http://svc.internal:8080/docs/openapi.json',
    );
    expect(made.url).toBe('http://svc.internal:8080/api/v2/items');
  });

  it('refuses a path parameter whose name a placeholder cannot hold', () => {
    expect(() =>
      operationTool(
        doc('/items/{item id}', [{ name: 'item id', in: 'path', required: true }]),
        'op',
        'http://x',
      ),
    ).toThrow('its path parameter "item id" has a name a {placeholder} cannot hold');
  });
});

describe('operationTool on operations that cannot be sent as they are written', () => {
  const post = (operation: Record<string, unknown>, path = '/items'): OpenApiSpec => ({
    servers: [
      { url: 'https://{region}.api.example.com/{v}', variables: { region: { default: 'eu' } } },
    ],
    paths: { [path]: { post: { operationId: 'op', ...operation } } },
  });
  const json = (schema: unknown) => ({ content: { 'application/json': { schema } } });

  it('takes a path variable the operation does not declare as a required string argument', () => {
    const made = operationTool(post({}, '/shops/{shop}/items/{item_id}'), 'op', 'http://x');
    expect(made.url).toBe('http://x/shops/{shop}/items/{item_id}');
    expect(made.parameters).toEqual({
      type: 'object',
      properties: { shop: { type: 'string' }, item_id: { type: 'string' } },
      required: ['shop', 'item_id'],
    });
    expect(() => operationTool(post({}, '/items/{item id}'), 'op', 'http://x')).toThrow(
      'its path parameter "item id" has a name a {placeholder} cannot hold',
    );
  });

  it('fills server variables with their defaults; one without a default needs base_url', () => {
    expect(() => operationTool(post({}), 'op')).toThrow(
      'is required: the spec\'s server URL has a variable {v} without a default ("https://{region}.api.example.com/{v}")',
    );
    const spec = post({});
    spec.servers![0]!.variables!.v = { default: 'v2' };
    expect(operationTool(spec, 'op').url).toBe('https://eu.api.example.com/v2/items');
    // A server URL ending in a slash (as many are written) gives no double slash.
    spec.servers![0]!.url = 'https://{region}.api.example.com/{v}/';
    expect(operationTool(spec, 'op').url).toBe('https://eu.api.example.com/v2/items');
  });

  it('takes no body for a verb whose arguments go in the query (a DELETE that declares one)', () => {
    const spec: OpenApiSpec = {
      paths: {
        '/items/{id}': {
          delete: {
            operationId: 'drop',
            parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
            requestBody: json({ type: 'object', properties: { reason: { type: 'string' } } }),
          },
        },
      },
    };
    expect(operationTool(spec, 'drop', 'http://x').parameters).toEqual({
      type: 'object',
      properties: { id: { type: 'string' } },
      required: ['id'],
    });
  });

  it('names at most 30 of the operations a spec has when the one asked for is not there', () => {
    const paths = Object.fromEntries(
      Array.from({ length: 40 }, (_, i) => [`/r${i}`, { get: { operationId: `op${i}` } }]),
    );
    const names = Array.from({ length: 30 }, (_, i) => `op${i}`).join(', ');
    expect(() => operationTool({ paths }, 'nope', 'http://x')).toThrow(
      `the spec has no operation "nope" (give an operationId or "METHOD /path"; it has: ${names})`,
    );
  });

  it.each([
    [
      'a body that is not an object',
      { requestBody: json({ type: 'array', items: { type: 'string' } }) },
      'its JSON request body is "array", not an object',
    ],
    [
      'a body property named as a parameter',
      {
        parameters: [{ name: 'id', in: 'query', required: true }],
        requestBody: json({ type: 'object', properties: { id: { type: 'integer' } } }),
      },
      "its body property 'id' has the name of one of its parameters",
    ],
    [
      'two parameters of one name in different places',
      {
        parameters: [
          { name: 'id', in: 'query', required: true },
          { name: 'id', in: 'header', required: true },
        ],
      },
      "two of its parameters are named 'id'",
    ],
  ])('refuses %s, saying why', (_, operation, message) => {
    expect(() => operationTool(post(operation), 'op', 'http://x')).toThrow(message);
  });

  it("takes a form body's fields as arguments, and sends them as a form", () => {
    const made = operationTool(
      post({
        requestBody: {
          required: true,
          content: {
            'application/x-www-form-urlencoded': {
              schema: {
                type: 'object',
                properties: { To: { type: 'string' }, Body: { type: 'string' } },
                required: ['To'],
              },
            },
          },
        },
      }),
      'op',
      'http://x',
    );
    expect(made.parameters).toEqual({
      type: 'object',
      properties: { To: { type: 'string' }, Body: { type: 'string' } },
      required: ['To'],
    });
    expect(made.headers).toEqual({ 'Content-Type': 'application/x-www-form-urlencoded' });
  });

  it('skips a body that is neither JSON nor a form when it is optional, saying so', () => {
    const made = operationTool(
      post({ requestBody: { content: { 'text/plain': { schema: { type: 'string' } } } } }),
      'op',
      'http://x',
    );
    expect(made.parameters).toEqual({ type: 'object', properties: {} });
    expect(made.skipped).toEqual(['request body (text/plain)']);
  });

  it('reads a JSON body under a structured-syntax media type (application/merge-patch+json)', () => {
    const schema = { type: 'object', properties: { status: { type: 'string' } } };
    const made = operationTool(
      post({ requestBody: { content: { 'application/merge-patch+json': { schema } } } }),
      'op',
      'http://x',
    );
    expect(made.parameters).toEqual({ type: 'object', properties: { status: { type: 'string' } } });
  });

  it('describes the operation by its summary and description, once when they are the same', () => {
    const described = (summary: string, description: string) =>
      operationTool(post({ summary, description }), 'op', 'http://x').description;
    expect(described('Cancel an order', 'Cancel an order')).toBe('Cancel an order');
    expect(described('Cancel an order', 'Only before it ships.')).toBe(
      'Cancel an order\n\nOnly before it ships.',
    );
    expect(described('', ' Only before it ships. ')).toBe('Only before it ships.');
  });
});
