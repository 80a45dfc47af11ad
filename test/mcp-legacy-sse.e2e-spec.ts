import { McpTestServer, useMcpServer } from './support/mcp-server.js';
import { writeToolsFile } from './support/tools-file.js';
import { callOnce, useClientPerTest, useEngineRig } from './support/turn-harness.js';

/**
 * MCP servers of the older HTTP+SSE transport (MCP 2024-11-05), still common: the engine's first
 * POST is refused, and it opens the event stream at the same URL instead, as the specification's
 * backwards compatibility has clients do.
 */
describe('MCP tools of a server speaking the older HTTP+SSE transport', () => {
  const mcp = new McpTestServer(
    [
      {
        name: 'lookup_order',
        description: 'Status of an order by its number.',
        inputSchema: { type: 'object', properties: { order_id: { type: 'string' } } },
        answer: (args, { headers }) => ({
          content: [
            { type: 'text', text: `Order ${String(args.order_id)}: shipped` },
            { type: 'text', text: `(asked with ${String(headers.authorization)})` },
          ],
        }),
      },
      {
        name: 'full_history',
        answer: () => ({ content: [{ type: 'text', text: 'x'.repeat(20_000) }] }),
      },
    ],
    { legacy: true },
  );
  const served = useMcpServer(mcp);
  const rig = useEngineRig(() => ({
    LLM_MODEL: 'm',
    TOOL_SECRET_MCP_TOKEN: 'legacy-token',
    LLM_TOOL_MAX_RESPONSE_BYTES: '10000',
    LLM_TOOLS_FILE: writeToolsFile([
      {
        type: 'mcp',
        name: 'lookup_order',
        url: served.url,
        headers: { Authorization: 'Bearer ${TOOL_SECRET_MCP_TOKEN}' },
      },
      { type: 'mcp', name: 'full_history', url: served.url, timeout_secs: 5 },
    ]),
  }));
  const client = useClientPerTest(rig);

  it("offers the server's tools and calls them with the tool's headers", async () => {
    const offered = await (
      await fetch(`${rig.engine.httpUrl}/api/tools/lookup_order/offered`)
    ).json();
    expect(offered).toMatchObject({
      description: 'Status of an order by its number.',
      parameters: { properties: { order_id: { type: 'string' } } },
    });
    const { read, result } = await callOnce(rig, client.ws, 'lookup_order', { order_id: 'A1' });
    expect(result).toMatchObject({ ok: true });
    expect(read).toBe('Order A1: shipped\n(asked with Bearer [secret])');
    expect(mcp.calls.at(-1)).toMatchObject({ name: 'lookup_order', args: { order_id: 'A1' } });
    expect(mcp.calls.at(-1)!.headers.authorization).toBe('Bearer legacy-token');
  });

  it('fails a call whose answer is larger than LLM_TOOL_MAX_RESPONSE_BYTES at once, and the next call works', async () => {
    const started = performance.now();
    const { read } = await callOnce(rig, client.ws, 'full_history');
    expect(read).toBe(
      'Error: tool request failed: the connection to the MCP server was lost: an event from the MCP server is larger than LLM_TOOL_MAX_RESPONSE_BYTES (10000 bytes)',
    );
    expect(performance.now() - started).toBeLessThan(4000); // not the 5 s timeout
    const again = await callOnce(rig, client.ws, 'lookup_order', { order_id: 'B2' });
    expect(again.read).toMatch(/^Order B2: shipped/);
  });

  it('opens a new session for the next call when the server ended the last one (a restart)', async () => {
    const opened = mcp.sessionsOpened;
    await mcp.forgetSessions();
    const { read } = await callOnce(rig, client.ws, 'lookup_order', { order_id: 'C3' });
    expect(read).toMatch(/^Order C3: shipped/);
    expect(mcp.sessionsOpened).toBe(opened + 1);
  });

  it('sends a call again in a new session when the server no longer knows the one it went to', async () => {
    await callOnce(rig, client.ws, 'lookup_order', { order_id: 'D4' }); // a session is open
    const opened = mcp.sessionsOpened;
    const calls = mcp.calls.length;
    mcp.failNext = { status: 404, body: 'Could not find session' };
    const { read } = await callOnce(rig, client.ws, 'lookup_order', { order_id: 'D5' });
    expect(read).toMatch(/^Order D5: shipped/);
    expect(mcp.sessionsOpened).toBe(opened + 1);
    expect(mcp.calls.length).toBe(calls + 1); // taken once
  });
});
