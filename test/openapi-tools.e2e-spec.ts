import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { refusedTools, writeToolsFile } from './support/tools-file.js';
import { useClientPerTest, useEngineRig, xmlCall } from './support/turn-harness.js';

const SPEC = resolve('test/fixtures/openapi/orders.yaml');
/** What operation getOrder of the document takes. */
const GET_ORDER_PARAMETERS = {
  type: 'object',
  properties: {
    order_id: { type: 'string', description: 'The order number' },
    fields: { type: 'string' },
    'X-Request-Source': { type: 'string' },
  },
  required: ['order_id'],
};

/**
 * OpenAPI tools (`"type": "openapi"`): an operation of an OpenAPI 3 document becomes an HTTP tool
 * (URL, method, description, typed arguments), with every field of an HTTP tool besides.
 */
describe('OpenAPI tools', () => {
  const rig = useEngineRig(
    (base) => ({
      LLM_MODEL: 'm',
      LLM_TOOLS_FILE: writeToolsFile([
        { type: 'openapi', spec: SPEC, operation: 'getOrder', base_url: `${base}/v1` },
        { type: 'openapi', spec: SPEC, operation: 'listOrders', base_url: `${base}/v1` },
        { type: 'openapi', spec: SPEC, operation: 'printLabels', base_url: `${base}/v1` },
        { type: 'openapi', spec: SPEC, operation: 'tagOrder', base_url: `${base}/v1` },
        { type: 'openapi', spec: SPEC, operation: 'updateOrder', base_url: `${base}/v1` },
        { type: 'openapi', spec: SPEC, operation: 'placeOrders', base_url: `${base}/v1` },
        { type: 'openapi', spec: SPEC, operation: 'saveTree', base_url: `${base}/v1` },
        { type: 'openapi', spec: SPEC, operation: 'resendOrder', base_url: `${base}/v1` },
        // The document as the service publishes it, read once when the tools are loaded.
        {
          type: 'openapi',
          name: 'cancel_order',
          spec: `${base}/specs/orders.yaml`,
          operation: 'cancelOrder',
          base_url: `${base}/v1`,
        },
        {
          type: 'openapi',
          name: 'place_order',
          spec: SPEC,
          operation: 'POST /orders',
          base_url: `${base}/v1`,
          headers: { 'X-Api-Key': 'k-1' },
          retries: 0,
        },
      ]),
    }),
    (req, res) =>
      req.path === '/specs/orders.yaml'
        ? res.writeHead(200, { 'Content-Type': 'application/yaml' }).end(readFileSync(SPEC))
        : res.writeHead(404).end(),
  );
  const client = useClientPerTest(rig);

  it('offers each operation with its summary, description and typed arguments, and sends the request it describes', async () => {
    rig.tools.respond((req, res) => res.end(`${req.method} ${req.url} ${req.body}`));
    rig.llm.enqueue(
      sseText([
        xmlCall('getOrder', { order_id: '42', fields: 'status', 'X-Request-Source': 'agent' }),
        xmlCall('place_order', { notify: 'true', coupon: 'TEA10', item: 'tea', quantity: '2' }),
      ]),
      sseText(['Done.']),
    );
    await client.ws.turn('where is 42, and order two teas');
    const offered = Object.fromEntries(
      rig.llm.requests[0]!.body.tools.map((t: any) => [t.function.name, t.function]),
    );
    expect(offered.getOrder.description).toBe(
      'Status of an order\n\nCall it when the caller asks where an order is.',
    );
    // The body's properties (allOf merged) beside the query parameter, as the document types them.
    expect(offered.place_order.parameters.properties.quantity).toEqual({
      type: 'integer',
      minimum: 1,
    });
    expect(offered.place_order.parameters.required).toEqual(['notify', 'item', 'quantity']);
    expect(offered.cancel_order).toMatchObject({
      description: 'Cancels an order',
      parameters: { required: ['order_id', 'X-Reason'] },
    });
    const [get, post] = rig.tools.requests;
    // A header parameter goes in its header only, never in the query.
    expect(get).toMatchObject({ method: 'GET', url: '/v1/orders/42?fields=status' });
    expect(get!.headers['x-request-source']).toBe('agent');
    // Values typed from the document's schema: a boolean in the query, an integer in the body.
    // An optional query parameter of a POST, given, goes to the query too.
    expect(post).toMatchObject({ method: 'POST', url: '/v1/orders?notify=true&coupon=TEA10' });
    expect(JSON.parse(post!.body)).toEqual({ item: 'tea', quantity: 2 });
    expect(post!.headers['x-api-key']).toBe('k-1');
    const read = rig.llm.requests[1]!.body.messages.filter((m: any) => m.role === 'tool');
    expect(read.map((m: any) => m.content)).toEqual([
      'GET /v1/orders/42?fields=status ',
      'POST /v1/orders?notify=true&coupon=TEA10 {"item":"tea","quantity":2}',
    ]);
  });

  it('offers the object of a body that may also be an array (oneOf), and sends it as the model gave it', async () => {
    rig.tools.respond((req, res) => res.end(`${req.method} ${req.url} ${req.body}`));
    rig.llm.enqueue(
      sseStructuredCalls([
        { id: 'c1', name: 'tagOrder', arguments: { order_id: '42', tags: ['gift'] } },
      ]),
      sseText(['Tagged.']),
    );
    await client.ws.turn('tag order 42 as a gift');
    const offered = rig.llm.requests[0]!.body.tools.find(
      (t: any) => t.function.name === 'tagOrder',
    );
    expect(offered.function.parameters).toEqual({
      type: 'object',
      properties: {
        order_id: { type: 'string' },
        tags: {
          type: 'array',
          minItems: 1,
          items: { type: 'string' },
          description: 'The tags to add',
        },
      },
      required: ['order_id', 'tags'],
    });
    expect(rig.tools.requests[0]).toMatchObject({ method: 'POST', url: '/v1/orders/42/tags' });
    expect(JSON.parse(rig.tools.requests[0]!.body)).toEqual({ tags: ['gift'] });
  });

  it('sends a body that is an array whole, from the one argument the model gives it', async () => {
    rig.tools.respond((req, res) => res.end(`${req.method} ${req.url} ${req.body}`));
    const body = [{ item: 'tea' }, { item: 'cake' }];
    rig.llm.enqueue(
      sseStructuredCalls([{ id: 'c1', name: 'placeOrders', arguments: { body } }]),
      sseText(['Both placed.']),
    );
    await client.ws.turn('a tea and a cake');
    const offered = rig.llm.requests[0]!.body.tools.find(
      (t: any) => t.function.name === 'placeOrders',
    );
    expect(offered.function.parameters.required).toEqual(['body']);
    expect(rig.tools.requests[0]).toMatchObject({ method: 'POST', url: '/v1/orders/batch' });
    expect(rig.tools.requests[0]!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(rig.tools.requests[0]!.body)).toEqual(body);
  });

  it('offers a recursive schema with its $defs, and checks the arguments at every depth of it', async () => {
    rig.tools.respond((req, res) => res.end(`${req.method} ${req.url} ${req.body}`));
    const tree = { name: 'root', children: [{ name: 'a', children: [{ name: null }] }] };
    rig.llm.enqueue(
      sseStructuredCalls([{ id: 'c1', name: 'saveTree', arguments: tree }]),
      sseText(['Saved.']),
    );
    await client.ws.turn('save the tree');
    const offered = rig.llm.requests[0]!.body.tools.find(
      (t: any) => t.function.name === 'saveTree',
    );
    const node = {
      type: 'object',
      properties: {
        name: { type: 'string' },
        children: { type: 'array', items: { $ref: '#/$defs/Node' } },
      },
    };
    expect(offered.function.parameters).toEqual({ ...node, $defs: { Node: node } });
    // The optional name given as null, three levels down, is left out rather than sent as "".
    expect(JSON.parse(rig.tools.requests[0]!.body)).toEqual({
      name: 'root',
      children: [{ name: 'a', children: [{}] }],
    });
  });

  it('offers a body property named like a path parameter as body_<name>, and sends each where it belongs', async () => {
    rig.tools.respond((req, res) => res.end(`${req.method} ${req.url} ${req.body}`));
    const args = { order_id: '42', body_order_id: '43', note: null };
    rig.llm.enqueue(
      sseStructuredCalls([{ id: 'c1', name: 'updateOrder', arguments: args }]),
      sseText(['Renumbered.']),
    );
    await client.ws.turn('order 42 is now 43');
    const offered = rig.llm.requests[0]!.body.tools.find(
      (t: any) => t.function.name === 'updateOrder',
    );
    expect(Object.keys(offered.function.parameters.properties)).toEqual([
      'order_id',
      'body_order_id',
      'note',
    ]);
    expect(rig.tools.requests[0]).toMatchObject({ method: 'PUT', url: '/v1/orders/42/details' });
    expect(JSON.parse(rig.tools.requests[0]!.body)).toEqual({ order_id: '43' });
  });

  it('sends no body for an operation that declares none, whatever its verb', async () => {
    rig.tools.respond((req, res) => res.end('sent'));
    const args = { order_id: '42', channel: 'sms' };
    rig.llm.enqueue(
      sseStructuredCalls([{ id: 'c1', name: 'resendOrder', arguments: args }]),
      sseText(['Sent again.']),
    );
    await client.ws.turn('send it again by text');
    const [sent] = rig.tools.requests;
    expect(sent).toMatchObject({ method: 'POST', url: '/v1/orders/42/resend?channel=sms' });
    // A strict server refuses a body where the operation takes none (HTTP 415).
    expect(sent!.body).toBe('');
    expect(sent!.headers['content-type']).toBeUndefined();
  });

  it("writes arrays and objects in the query as each parameter's style says", async () => {
    rig.tools.respond((_req, res) => res.end('[]'));
    rig.llm.enqueue(
      sseStructuredCalls([
        {
          id: 'call_list',
          name: 'listOrders',
          arguments: {
            status: ['open', 'late'],
            ids: [7, 9],
            created: { from: '2026-01-01', to: '2026-02-01' },
            page: 2,
          },
        },
      ]),
      sseText(['None.']),
    );
    await client.ws.turn('open or late orders 7 and 9 of January');
    expect(rig.tools.requests.at(-1)).toMatchObject({
      method: 'GET',
      url: '/v1/orders?status=open&status=late&ids=7,9&created[from]=2026-01-01&created[to]=2026-02-01&page=2',
    });
  });

  it("writes arrays and objects in the path as each parameter's style says", async () => {
    rig.tools.respond((_req, res) => res.end('printed'));
    rig.llm.enqueue(
      sseStructuredCalls([
        {
          id: 'call_labels',
          name: 'printLabels',
          arguments: { ids: [7, 9], format: { size: 'A6', dpi: 300 } },
        },
      ]),
      sseText(['Printed.']),
    );
    await client.ws.turn('labels for 7 and 9, A6 at 300 dpi');
    expect(rig.tools.requests.at(-1)).toMatchObject({
      method: 'GET',
      url: '/v1/labels/7,9;format=size,A6,dpi,300',
    });
  });

  it('shows the definitions as they were given, and what the model is offered', async () => {
    const offered = (await (
      await fetch(`${rig.engine.httpUrl}/api/tools/getOrder/offered`)
    ).json()) as any;
    expect(offered).toEqual({
      name: 'getOrder',
      description: 'Status of an order\n\nCall it when the caller asks where an order is.',
      parameters: GET_ORDER_PARAMETERS,
    });
    const listed = (await (await fetch(`${rig.engine.httpUrl}/api/tools`)).json()) as any;
    expect(listed.tools[0]).toEqual({
      type: 'openapi',
      spec: SPEC,
      operation: 'getOrder',
      base_url: expect.stringMatching(/\/v1$/),
    });
  });

  it('refuses an operation it cannot make a tool of, naming the field', async () => {
    const refused = (definition: Record<string, unknown>) =>
      refusedTools(rig.engine.httpUrl, [{ type: 'openapi', spec: SPEC, ...definition }]);
    expect(await refused({ operation: 'nope' })).toMatch(
      /^request body: tool #0: field 'operation': the spec has no operation "nope"/,
    );
    expect(await refused({ operation: 'create-order.v2' })).toMatch(
      /^request body: tool #0: field 'name' is required: the operation's id "create-order\.v2" is not a tool name/,
    );
    expect(await refused({ operation: 'upload' })).toBe(
      "request body: tool #0: field 'operation': its request body is neither JSON, a form nor text (multipart/form-data)",
    );
    expect(await refused({ operation: 'getOrder', url: 'http://x' })).toMatch(
      /field 'url' is not used by OpenAPI tools: the operation gives it/,
    );
    expect(await refused({ spec: 'missing.yaml', operation: 'getOrder' })).toMatch(
      /^request body: tool #0: field 'spec' cannot be read as an OpenAPI document \(.*missing\.yaml\)/,
    );
    // A document at a URL goes where a tool's request may go: never to cloud metadata.
    expect(
      await refused({ spec: 'http://169.254.169.254/openapi.yaml', operation: 'getOrder' }),
    ).toMatch(/field 'spec' cannot be read .*refused: 169\.254\.169\.254 is an address/);
    // A file that is not YAML is named, never quoted.
    const bad = join(mkdtempSync(join(tmpdir(), 'engine-openapi-')), 'bad.yaml');
    writeFileSync(bad, 'a: [\n  secret-line-1\n  : bad\n');
    const message = await refused({ spec: bad, operation: 'getOrder' });
    expect(message).toMatch(/field 'spec' cannot be read as an OpenAPI document .*bad\.yaml/);
    expect(message).not.toContain('secret-line');
  });
});
