import { McpTestServer, ORDER_SCHEMA, useMcpServer } from './support/mcp-server.js';
import { runCommand } from './support/built-engine.js';
import { validateToolDefinitions } from '../src/tools/tool-validation.js';

/** `npm run tools:mcp`: a tools file's entries, one for each tool an MCP server lists. */
describe('scripts/mcp-entries.mjs', () => {
  const mcp = new McpTestServer([
    ...['lookup_order', 'orders.cancel', 'orders cancel'].map((name) => ({
      name,
      inputSchema: ORDER_SCHEMA,
      answer: () => ({ content: [] }),
    })),
    { name: 'summarize', samplingOnly: true, answer: () => ({ content: [] }) },
  ]);
  const server = useMcpServer(mcp);

  const run = (args: string[], env: Record<string, string> = {}) =>
    runCommand('scripts/mcp-entries.mjs', args, env);

  it("writes an entry per listed tool, named as the engine takes them, the server's headers as given", async () => {
    const header = 'Authorization: Bearer ${TOOL_SECRET_CRM}';
    const { code, out, err } = await run(['--prefix', 'crm_', '--header', header, server.url], {
      TOOL_SECRET_CRM: 's3cret',
    });
    expect(code).toBe(0);
    const entries = JSON.parse(out);
    const where = { url: server.url, headers: { Authorization: 'Bearer ${TOOL_SECRET_CRM}' } };
    expect(entries).toEqual([
      { type: 'mcp', name: 'crm_lookup_order', tool: 'lookup_order', ...where },
      { type: 'mcp', name: 'crm_orders_cancel', tool: 'orders.cancel', ...where },
      { type: 'mcp', name: 'crm_orders_cancel_2', tool: 'orders cancel', ...where },
    ]);
    // The secret was filled in to list, and is written as a reference.
    expect(mcp.listedWith.at(-1)!.authorization).toBe('Bearer s3cret');
    expect(err).toMatch(/^3 tool\(s\) listed/);
    // A tools file the engine takes as it is.
    const env = { TOOL_SECRET_CRM: 's3cret' };
    expect(validateToolDefinitions(entries, 'tools.json', { env }).tools).toHaveLength(3);
  });

  it('with --sampling, lists the tools a server offers only to a client that offers sampling, and allows it', async () => {
    const { code, out } = await run(['--sampling', server.url]);
    expect(code).toBe(0);
    const entries = JSON.parse(out);
    expect(entries.map((e: { name: string }) => e.name)).toEqual([
      'lookup_order',
      'orders_cancel',
      'orders_cancel_2',
      'summarize',
    ]);
    expect(entries[3]).toEqual({ type: 'mcp', name: 'summarize', url: server.url, sampling: true });
    expect(validateToolDefinitions(entries, 'tools.json', { env: {} }).tools).toHaveLength(4);
  });

  it('lists a server run as a command, and says why one cannot be listed', async () => {
    const stdio = await run(['--', 'node', 'test/support/mcp-stdio-server.mjs']);
    expect(JSON.parse(stdio.out)[0]).toEqual({
      type: 'mcp',
      name: 'add',
      command: 'node',
      args: ['test/support/mcp-stdio-server.mjs'],
    });
    const down = await run(['http://127.0.0.1:9/mcp']);
    expect([down.code, down.out, down.err]).toEqual([
      1,
      '',
      'cannot list the tools of the MCP server: cannot reach the MCP server (ECONNREFUSED)\n',
    ]);
    expect((await run(['--header', 'no colon', server.url])).err).toMatch(
      /^--header takes 'Name: value'/,
    );
  });
});
