import { REFUSED_ORIGIN } from './support/refused.js';
import { sseStructuredCalls, sseText, type Script } from './support/fake-llm.js';
import { McpTestServer, ORDER_SCHEMA } from './support/mcp-server.js';
import { writeToolsFile } from './support/tools-file.js';
import {
  callOnce,
  pieces,
  useClientPerTest,
  useEngineRig,
  xmlCall,
} from './support/turn-harness.js';
import { WsClient } from './support/ws-client.js';
import { until } from './support/waiting.js';

/**
 * MCP tools (`"type": "mcp"`): tools of an MCP server, reached over Streamable HTTP, offered to the
 * model like any other and called with `tools/call`.
 */
/**
 * A schema listed as servers generated from an API description list them: with every shared
 * schema of the API, used or not.
 */
const CANCEL_SCHEMA = {
  type: 'object',
  properties: { order_id: { $ref: '#/$defs/orderId' } },
  required: ['order_id'],
  $defs: {
    orderId: { type: 'string', description: 'The order number' },
    address: { type: 'object', properties: { street: { type: 'string' } } },
  },
};

describe('MCP tools', () => {
  const mcp = new McpTestServer([
    {
      name: 'lookup_order',
      description: 'Status of an order by its number.',
      inputSchema: ORDER_SCHEMA,
      annotations: { readOnlyHint: true },
      answer: (args, { headers }) => ({
        content: [
          { type: 'text', text: `Order ${String(args.order_id)}: shipped` },
          { type: 'text', text: `(asked with ${String(headers.authorization)})` },
        ],
      }),
    },
    {
      name: 'orders.cancel',
      description: 'server text',
      inputSchema: CANCEL_SCHEMA,
      answer: (args) => ({
        content: [{ type: 'text', text: `no such order ${String(args.order_id)}` }],
        isError: true,
      }),
    },
    {
      name: 'slow_report',
      answer: (_args, { signal }) =>
        new Promise((resolve) =>
          signal.addEventListener('abort', () => resolve({ content: [] }), { once: true }),
        ),
    },
    {
      name: 'wait_forever',
      // It changes nothing: cut with its turn (one that acts is let finish, LLM_TOOL_INTERRUPTED_CALLS).
      annotations: { readOnlyHint: true },
      answer: (_args, { signal }) =>
        new Promise((resolve) =>
          signal.addEventListener(
            'abort',
            () => {
              aborted++;
              resolve({ content: [] });
            },
            { once: true },
          ),
        ),
    },
    {
      name: 'whoami',
      answer: (_args, { headers }) => ({
        content: [{ type: 'text', text: `customer ${String(headers['x-customer'])}` }],
      }),
    },
  ]);
  let mcpUrl = '';
  let deadUrl = '';
  let aborted = 0;
  beforeAll(async () => {
    mcpUrl = await mcp.start();
    // A server that is down.
    deadUrl = `${REFUSED_ORIGIN}/mcp`;
  });
  afterAll(() => mcp.stop());

  const rig = useEngineRig(() => ({
    LLM_MODEL: 'm',
    LLM_TOOL_BREAKER_FAILURES: '2',
    CODE_TOOLS_WORKERS: '1',
    TOOL_SECRET_MCP_TOKEN: 's3cr3t-token',
    LLM_TOOLS_FILE: writeToolsFile([
      {
        type: 'mcp',
        name: 'lookup_order',
        url: mcpUrl,
        headers: { Authorization: 'Bearer ${TOOL_SECRET_MCP_TOKEN}' },
      },
      {
        type: 'mcp',
        name: 'cancel_order',
        tool: 'orders.cancel',
        url: mcpUrl,
        description: 'Cancels an order.',
      },
      { type: 'mcp', name: 'slow_report', url: mcpUrl, timeout_secs: 0.5 },
      { type: 'mcp', name: 'wait_forever', url: mcpUrl },
      // A server that is down: given its description and schema, the tool loads without it.
      {
        type: 'mcp',
        name: 'crm_down',
        url: deadUrl,
        description: 'A CRM that is down.',
        parameters: { type: 'object', properties: {} },
      },
      {
        type: 'python',
        code: 'def order_line(order_id: str) -> str:\n    """One line about an order, from the CRM."""\n    return "CRM says: " + str(tools.lookup_order({"order_id": order_id}))',
        timeout_secs: 10,
      },
      {
        type: 'mcp',
        name: 'whoami',
        url: mcpUrl,
        headers: { 'X-Customer': '${session.customer}' },
        description: 'Who the caller is.',
        parameters: { type: 'object', properties: {} },
      },
    ]),
  }));
  const client = useClientPerTest(rig);

  /** One turn of `ws` calling `name`: what the model read, and the tool_result event. */
  const call = (name: string, args: Record<string, unknown> = {}, ws = client.ws) =>
    callOnce(rig, ws, name, args);

  it("offers the server's tools to the model with the description and schema the server lists", async () => {
    await call('lookup_order', { order_id: '42' });
    const offered = Object.fromEntries(
      rig.llm.requests[0]!.body.tools.map((t: any) => [t.function.name, t.function]),
    );
    expect(offered.lookup_order).toEqual({
      name: 'lookup_order',
      description: 'Status of an order by its number.',
      parameters: ORDER_SCHEMA,
    });
    // The definition's own description wins; the remote name stays the engine's business.
    // Shared schemas nothing refers to are left out.
    const { address, ...used } = CANCEL_SCHEMA.$defs;
    expect(address).toBeDefined();
    expect(offered.cancel_order).toEqual({
      name: 'cancel_order',
      description: 'Cancels an order.',
      parameters: { ...CANCEL_SCHEMA, $defs: used },
    });
    // An admin sees the same over the API.
    const api = await fetch(`${rig.engine.httpUrl}/api/tools/lookup_order/offered`);
    expect(await api.json()).toEqual(offered.lookup_order);
    expect((await fetch(`${rig.engine.httpUrl}/api/tools/nope/offered`)).status).toBe(404);
    expect(Object.keys(offered)).toEqual([
      'lookup_order',
      'cancel_order',
      'slow_report',
      'wait_forever',
      'crm_down',
      'order_line',
      'whoami',
    ]);
  });

  it('calls the tool on its server with the arguments and headers, secrets masked in what the model reads', async () => {
    mcp.calls.length = 0;
    const { read, result } = await call('lookup_order', { order_id: '42' });
    expect(read).toBe('Order 42: shipped\n(asked with Bearer [secret])');
    expect(result).toMatchObject({ name: 'lookup_order', ok: true });
    expect(mcp.calls).toEqual([
      expect.objectContaining({ name: 'lookup_order', args: { order_id: '42' } }),
    ]);
    expect(mcp.calls[0]!.headers.authorization).toBe('Bearer s3cr3t-token');
    // The call's request is logged under the turn's trace, as the LLM requests are.
    const traceOf = (h: unknown) => /^00-([0-9a-f]{32})-[0-9a-f]{16}-01$/.exec(String(h))?.[1];
    const trace = traceOf(rig.llm.requests[0]!.headers.traceparent);
    expect(trace).toBeDefined();
    expect(traceOf(mcp.calls[0]!.headers.traceparent)).toBe(trace);
  });

  it('is called by a code tool as any other tool (tools.<name> in its Python)', async () => {
    mcp.calls.length = 0;
    // The code's str result reaches the model as JSON, as any code tool's.
    expect((await call('order_line', { order_id: '77' })).read).toBe(
      JSON.stringify('CRM says: Order 77: shipped\n(asked with Bearer [secret])'),
    );
    expect(mcp.calls.map((c) => [c.name, c.args])).toEqual([['lookup_order', { order_id: '77' }]]);
  });

  it("hands an error the tool reports to the model, calling it by the server's name", async () => {
    mcp.calls.length = 0;
    const { read, result } = await call('cancel_order', { order_id: '7' });
    expect(read).toBe('Error: no such order 7');
    expect(result).toMatchObject({ ok: false });
    expect(mcp.calls.map((c) => c.name)).toEqual(['orders.cancel']);
    // The listed schema, shared schemas and all, is what the arguments are checked against.
    expect((await call('cancel_order', { order_id: { id: 7 } })).read).toMatch(/order_id/);
    expect(mcp.calls).toHaveLength(1);
  });

  it('gives up a call past its timeout, and the model reads why', async () => {
    const started = Date.now();
    const { read } = await call('slow_report');
    expect(read).toBe('Error: tool request failed: timed out after 0.5s');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('cancels a call on the server when the user interrupts the turn, and no other', async () => {
    // Calls answered within their turn are not "cancelled" when the turn ends.
    const cancelled = mcp.cancellations;
    await call('lookup_order', { order_id: '9' });
    await call('lookup_order', { order_id: '10' });
    expect(mcp.cancellations).toBe(cancelled);
    rig.llm.enqueue(sseStructuredCalls([{ id: 'call_1', name: 'wait_forever', arguments: {} }]));
    const before = aborted;
    const from = client.ws.messages.length;
    client.ws.send({ type: 'user_text', text: 'wait' });
    await client.ws.waitFor((m) => m.type === 'tool_call', from);
    await until(() => mcp.calls.some((c) => c.name === 'wait_forever'), 'the call on the server');
    client.ws.send({ type: 'interrupt' });
    expect(await client.ws.waitFor((m) => m.type === 'assistant_end', from)).toMatchObject({
      interrupted: true,
    });
    // The server's handler saw the cancellation (notifications/cancelled), long before any timeout.
    await until(() => aborted === before + 1, 'the cancellation on the server');
    expect(mcp.cancellations).toBe(cancelled + 1);
  });

  it('says what the server answered when it fails the request', async () => {
    mcp.failNext = { status: 503, body: 'down for maintenance' };
    expect((await call('lookup_order', { order_id: '3' })).read).toBe(
      'Error: tool request failed: the MCP server answered HTTP 503: down for maintenance',
    );
    // The next call goes through (on a new connection).
    expect((await call('lookup_order', { order_id: '4' })).read).toMatch(/^Order 4: shipped/);
  });

  it('stops calling a server that is down for a while, as for HTTP tools', async () => {
    for (let i = 0; i < 2; i++)
      expect((await call('crm_down')).read).toBe(
        'Error: tool request failed: cannot reach the MCP server (ECONNREFUSED)',
      );
    expect((await call('crm_down')).read).toMatch(
      /^Error: tool request failed: not sent: the service is unavailable \(its last 2 calls failed\); it is tried again in \d+s$/,
    );
    const health = (await (await fetch(`${rig.engine.httpUrl}/health`)).json()) as any;
    expect(health.tools.unavailable).toEqual(['crm_down']);
    // The server's other tools are not affected.
    expect((await call('lookup_order', { order_id: '8' })).read).toMatch(/^Order 8: shipped/);
  });

  it("sends each session's variables in its headers", async () => {
    const other = await WsClient.connect(rig.engine.wsUrl);
    try {
      for (const [ws, customer] of [
        [client.ws, 'c-1'],
        [other, 'c-2'],
      ] as const) {
        ws.send({ type: 'session.update', variables: { customer } });
        await ws.waitFor((m) => m.type === 'session.updated');
      }
      expect((await call('whoami', {}, client.ws)).read).toBe('customer c-1');
      expect((await call('whoami', {}, other)).read).toBe('customer c-2');
    } finally {
      other.close();
    }
  });

  it('starts a call the server marks read-only while the model is still writing, and no other', async () => {
    mcp.calls.length = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const text = `${xmlCall('lookup_order', { order_id: '5' })}\n${xmlCall('cancel_order', { order_id: '6' })}`;
    rig.llm.enqueue({ ...sseText(pieces(text, 6)), gate } as Script, sseText(['Done.']));
    const from = client.ws.messages.length;
    client.ws.send({ type: 'user_text', text: 'status of 5, cancel 6' });
    await until(() => mcp.calls.length === 1, 'the read-only call to reach the server');
    expect(mcp.calls[0]!.name).toBe('lookup_order');
    expect(rig.llm.requests).toHaveLength(1); // the model is still writing
    await new Promise((r) => setTimeout(r, 100));
    expect(mcp.calls).toHaveLength(1); // cancel_order waits for the message's end
    release();
    await client.ws.waitFor((m) => m.type === 'assistant_end', from);
    expect(mcp.calls.map((c) => c.name)).toEqual(['lookup_order', 'orders.cancel']);
  });

  it('can be tried over /api/tools/{name}/call, checked against the listed schema', async () => {
    const tryTool = async (body: unknown) => {
      const res = await fetch(`${rig.engine.httpUrl}/api/tools/lookup_order/call`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      return (await res.json()) as { ok: boolean; result: string };
    };
    expect(await tryTool({ arguments: { order_id: '9' } })).toMatchObject({
      ok: true,
      result: 'Order 9: shipped\n(asked with Bearer [secret])',
    });
    expect(await tryTool({ arguments: {} })).toMatchObject({
      ok: false,
      result:
        "Error: tool request failed: invalid arguments: arguments must have required property 'order_id'",
    });
  });

  it('opens a new session when the server has forgotten its own (a restart)', async () => {
    await call('lookup_order', { order_id: '1' });
    const opened = mcp.sessionsOpened;
    await mcp.forgetSessions();
    expect((await call('lookup_order', { order_id: '2' })).read).toMatch(/^Order 2: shipped/);
    expect(mcp.sessionsOpened).toBe(opened + 1);
  });
});
