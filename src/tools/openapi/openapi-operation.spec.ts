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
          'X-Request-Source': { type: 'string' },
        },
        required: ['order_id'],
      },
      headers: { 'X-Request-Source': '{X-Request-Source}' },
      queryStyles: {},
      placeholderStyles: {},
      operationId: 'getOrder',
      tags: [],
      skipped: [],
      notes: [],
      queryArguments: [],
      headerArguments: ['X-Request-Source'],
    });
  });

  it('merges a JSON body (allOf) into the arguments; a POST takes its query parameters as query_arguments', () => {
    const made = operationTool(spec, 'POST /orders', 'http://127.0.0.1:9/api/');
    expect(made.url).toBe('http://127.0.0.1:9/api/orders');
    expect(made.method).toBe('POST');
    expect(made.parameters).toEqual({
      type: 'object',
      properties: {
        notify: { type: 'boolean' },
        coupon: { type: 'string' },
        item: { type: 'string', description: 'What to order' },
        quantity: { type: 'integer', minimum: 1 },
      },
      required: ['notify', 'item', 'quantity'],
    });
    // Required of the model (notify) or not (coupon), whatever their names.
    expect(made.queryArguments).toEqual(['notify', 'coupon']);
    expect(made.skipped).toEqual([]);
  });

  it('takes the query parameters of a POST whatever their names (OData, JCR)', () => {
    const made = operationTool(
      {
        servers: [{ url: 'https://api.example.com' }],
        paths: {
          '/search': {
            post: {
              operationId: 'search',
              parameters: [
                { name: '$filter', in: 'query', required: true, schema: { type: 'string' } },
                { name: 'jcr:primaryType', in: 'query', schema: { type: 'string' } },
              ],
            },
          },
        },
      },
      'search',
    );
    expect([made.url, made.queryArguments, made.parameters.required]).toEqual([
      'https://api.example.com/search',
      ['$filter', 'jcr:primaryType'],
      ['$filter'],
    ]);
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

  it('sends a header parameter from its argument, in its header only; one of one value is written in', () => {
    const made = operationTool(spec, 'cancelOrder');
    expect(made.headers).toEqual({ 'X-Reason': '{X-Reason}', 'X-Client': 'voice-agent' });
    expect(made.headerArguments).toEqual(['X-Reason']);
    expect(made.parameters.required).toEqual(['order_id', 'X-Reason']);
    expect(Object.keys(made.parameters.properties as object)).toEqual(['order_id', 'X-Reason']);
    expect(made.url).toBe(
      'https://eu.orders.example.com/v1/orders/{order_id}?api-version=2024-06-01',
    );

    // Accept, Content-Type and Authorization are ignored, as OpenAPI says; an optional header
    // whose name a placeholder cannot hold is left out, not the operation refused.
    const header = (name: string, required = false) => ({ name, in: 'header', required });
    const odd = operationTool(
      {
        servers: [{ url: 'https://api.example.com' }],
        paths: {
          '/x': {
            get: {
              operationId: 'x',
              parameters: [
                header('Accept'),
                header('authorization', true),
                header('X-Odd~Name'),
                header('X-Trace'),
              ],
            },
          },
        },
      },
      'x',
    );
    expect([odd.headers, odd.headerArguments, odd.skipped]).toEqual([
      { 'X-Trace': '{X-Trace}' },
      ['X-Trace'],
      ["header parameter 'X-Odd~Name'"],
    ]);
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
      /^operation: the spec has no operation "nope" .*it has: getOrder, cancelOrder, listOrders, create-order\.v2, saveTree, upload, printLabels, updateOrder, placeOrders, tagOrder, resendOrder\)$/,
    );
    expect(why('upload')).toBe(
      'operation: its request body is neither JSON, a form nor text (multipart/form-data)',
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
  it('writes in a value of one (an enum of one) as UTF-8, half a character as U+FFFD', () => {
    const one = (name: string, where: string) => ({
      name,
      in: where,
      required: true,
      schema: { type: 'string', enum: ['v\ud800'] },
    });
    const made = operationTool(
      {
        servers: [{ url: 'https://api.example.com' }],
        paths: {
          '/x/{kind}': {
            get: { operationId: 'x', parameters: [one('kind', 'path'), one('v', 'query')] },
          },
        },
      },
      'x',
    );
    expect(made.url).toBe('https://api.example.com/x/v%EF%BF%BD?v=v%EF%BF%BD');
  });
});
