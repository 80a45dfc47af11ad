import { McpTestServer, ORDER_SCHEMA, type McpTestTool } from './support/mcp-server.js';
import { useServerDownRig } from './support/mcp-server-down.js';
import { postTools, refusedTools, writeToolsFile } from './support/tools-file.js';
import { callOnce, offeredNames, useClientPerTest, useEngineRig } from './support/turn-harness.js';
import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { untilAsync } from './support/waiting.js';

const text = (t: string) => ({ content: [{ type: 'text', text: t }] });

/** Entries of `"type": "mcp"` for a server's tools (`"tools": "*"` or names), not one tool each. */
describe('an entry for the tools an MCP server lists', () => {
  const lookup: McpTestTool = {
    name: 'lookup_order',
    description: 'Status of an order by its number.',
    inputSchema: ORDER_SCHEMA,
    annotations: { readOnlyHint: true },
    answer: (args) => text(`Order ${String(args.order_id)} shipped`),
  };
  const cancel: McpTestTool = {
    name: 'orders.cancel',
    inputSchema: ORDER_SCHEMA,
    answer: () => text('cancelled'),
  };
  const refund: McpTestTool = {
    name: 'refund',
    description: 'Refunds an order.',
    inputSchema: ORDER_SCHEMA,
    annotations: { destructiveHint: false },
    answer: () => text('refunded'),
  };
  const mcp = new McpTestServer([lookup, cancel, refund]);
  let mcpUrl = '';
  // Started before the engine reads its tools file.
  beforeAll(async () => {
    mcpUrl = await mcp.start();
  }, 20_000);
  afterAll(() => mcp.stop());
  const rig = useEngineRig((base) => {
    const weather = { name: 'get_weather', url: `${base}/{city}`, method: 'GET' };
    return {
      LLM_MODEL: 'm',
      LLM_TOOLS_FILE: writeToolsFile([
        weather,
        // Its own entry: asked for approval, under a name of the admin's.
        { type: 'mcp', name: 'cancel', tool: 'orders.cancel', url: mcpUrl, confirm: true },
        { type: 'mcp', url: mcpUrl, tools: '*', prefix: 'crm_', timeout_secs: 5 },
      ]),
    };
  });
  const client = useClientPerTest(rig);
  const api = (path = '') => fetch(`${rig.engine.httpUrl}/api/tools${path}`);

  it('offers each tool the server lists, as it lists it, leaving one with an entry of its own to it', async () => {
    expect(await offeredNames(rig, client.ws)).toEqual([
      'get_weather',
      'cancel',
      'crm_lookup_order',
      'crm_refund',
    ]);
    const offered = rig.llm.requests[0]!.body.tools.map((t: any) => t.function);
    expect(offered[2]).toEqual({
      name: 'crm_lookup_order',
      description: 'Status of an order by its number.',
      parameters: ORDER_SCHEMA,
    });
    const before = mcp.calls.length;
    const { read } = await callOnce(rig, client.ws, 'crm_lookup_order', { order_id: '7' });
    expect(read).toBe('Order 7 shipped');
    expect(mcp.calls.slice(before).map((c) => [c.name, c.args])).toEqual([
      ['lookup_order', { order_id: '7' }],
    ]);
    // The admin sees the tools the entry became, each an entry that can be changed on its own.
    const listed = (await (await api()).json()) as { tools: Record<string, unknown>[] };
    expect(listed.tools.slice(2)).toEqual([
      { type: 'mcp', url: mcpUrl, timeout_secs: 5, name: 'crm_lookup_order', tool: 'lookup_order' },
      { type: 'mcp', url: mcpUrl, timeout_secs: 5, name: 'crm_refund', tool: 'refund' },
    ]);
    const health = (await (await fetch(`${rig.engine.httpUrl}/health`)).json()) as any;
    expect(health.tools).toEqual({ count: 4, source: 'file', unavailable: [] });
  });

  it('takes the tools named, as the API gives them, and refuses what cannot be', async () => {
    const refused = (definition: Record<string, unknown>) =>
      refusedTools(rig.engine.httpUrl, [{ type: 'mcp', url: mcpUrl, ...definition }]);
    expect(await refused({ tools: ['refund', 'nope'] })).toBe(
      "request body: tool #0: field 'tools': the MCP server has no tool 'nope' (it lists: lookup_order, orders.cancel, refund)",
    );
    expect(await refused({ tools: '*', name: 'x' })).toMatch(
      /^request body: tool #0 'x': field 'name' is one tool's, and the entry is for the tools its server lists \('tools'\)/,
    );
    expect(await refused({ tools: 'all' })).toMatch(
      /^request body: tool #0: field 'tools' is invalid: expected "\*"/,
    );
    expect(await refused({ tools: [] })).toMatch(/field 'tools' is invalid/);
    expect(await refused({ prefix: 'crm_' })).toMatch(/field 'name' is required/);
    expect(await refused({ name: 'lookup_order', prefix: 'crm_' })).toBe(
      "request body: tool #0 'lookup_order': field 'prefix' is put before the names of 'tools', which the entry does not have",
    );
    expect(await refused({ tools: '*', headers: { 'X-C': '${session.customer}' } })).toMatch(
      /field 'tools' needs the server's list of tools, which cannot be read before a session/,
    );
    const res = await postTools(rig.engine.httpUrl, [
      { type: 'mcp', url: mcpUrl, tools: ['refund', 'orders.cancel'] },
    ]);
    expect(res.status).toBe(200);
    // Names as the engine takes them: a dot is no character of a tool name.
    expect(await offeredNames(rig, client.ws)).toEqual(['refund', 'orders_cancel']);
    const { read } = await callOnce(rig, client.ws, 'orders_cancel', { order_id: '2' });
    expect(read).toBe('cancelled');
    expect(mcp.calls.at(-1)!.name).toBe('orders.cancel');
  });

  it('asks approval, with "confirm": "destructive", of the calls of tools the server does not mark harmless', async () => {
    const res = await postTools(rig.engine.httpUrl, [
      { type: 'mcp', url: mcpUrl, tools: '*', prefix: 'crm_', confirm: 'destructive' },
    ]);
    expect(res.status).toBe(200);
    const ws = client.ws;
    const asked = async (name: string) => {
      rig.llm.reset();
      rig.llm.enqueue(
        sseStructuredCalls([{ id: 'c1', name, arguments: { order_id: '5' } }]),
        sseText(['Done.']),
      );
      const from = ws.messages.length;
      ws.send({ type: 'user_text', text: `use ${name}` });
      const first = await ws.waitFor(
        (m) => m.type === 'tool_confirm' || m.type === 'tool_result',
        from,
      );
      if (first.type === 'tool_confirm')
        ws.send({ type: 'tool_confirm', id: first.id, approved: true });
      await ws.waitFor((m) => m.type === 'assistant_end', from);
      return first.type === 'tool_confirm';
    };
    // Not marked at all: MCP reads it as possibly destructive.
    expect(await asked('crm_orders_cancel')).toBe(true);
    expect(mcp.calls.at(-1)!.name).toBe('orders.cancel');
    expect(await asked('crm_refund')).toBe(false); // destructiveHint: false
    expect(await asked('crm_lookup_order')).toBe(false); // readOnlyHint: true
  });

  it('takes the tools the server lists anew, and leaves out those it no longer lists', async () => {
    const res = await postTools(rig.engine.httpUrl, [
      { type: 'mcp', url: mcpUrl, tools: '*', prefix: 'crm_' },
    ]);
    expect(res.status).toBe(200);
    const names = ['crm_lookup_order', 'crm_orders_cancel', 'crm_refund'];
    expect(await offeredNames(rig, client.ws)).toEqual(names);
    const track: McpTestTool = {
      name: 'track',
      inputSchema: ORDER_SCHEMA,
      answer: () => text('in transit'),
    };
    await mcp.changeTools([lookup, cancel, track]);
    await untilAsync(
      async () => (await offeredNames(rig, client.ws)).includes('crm_track'),
      'the new list applied',
    );
    expect(await offeredNames(rig, client.ws)).toEqual([...names.slice(0, 2), 'crm_track']);
    const health = (await (await fetch(`${rig.engine.httpUrl}/health`)).json()) as any;
    expect(health.tools.unavailable).toEqual(['crm_refund']);
    expect((await callOnce(rig, client.ws, 'crm_track', { order_id: '4' })).read).toBe(
      'in transit',
    );
  });
});

/** The server of such an entry down at start-up: the engine starts, and offers its tools later. */
describe('an entry for the tools of an MCP server that is down at start-up', () => {
  const { down, rig, client, health } = useServerDownRig((down) => [
    { ...down.definition(), name: undefined, tools: '*', prefix: 'shop-' },
  ]);

  it('says so in /health, and offers them once the server answers', async () => {
    expect(await offeredNames(rig, client.ws)).toEqual(['get_weather']);
    expect(await health()).toEqual({ count: 2, source: 'file', unavailable: ['shop-*'] });
    await down.mcp.start(down.port);
    await untilAsync(
      async () => (await offeredNames(rig, client.ws)).includes('shop-lookup_order'),
      'the tools listed',
    );
    expect(await health()).toEqual({ count: 2, source: 'file', unavailable: [] });
    const { read } = await callOnce(rig, client.ws, 'shop-lookup_order', { order_id: '3' });
    expect(read).toBe('Order 3');
  });
});
