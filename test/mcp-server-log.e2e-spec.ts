import { Logger } from '@nestjs/common';
import { Engine } from './support/engine.js';
import { McpTestServer, useMcpServer } from './support/mcp-server.js';
import { writeToolsFile } from './support/tools-file.js';

const KEY = 'k3y-of-the-orders-server';

/**
 * What an MCP server logs for its client (`notifications/message`: FastMCP's `ctx.warning()`)
 * reaches the engine's log, at the level the server gave, naming the server.
 */
describe("an MCP server's log messages", () => {
  const mcp = new McpTestServer([
    {
      name: 'reserve',
      answer: async (_args, { log }) => {
        await log!('warning', `stock low for SKU-1 (asked with ${KEY})`);
        await log!('info', { sku: 'SKU-1', left: 2 });
        return { content: [{ type: 'text', text: 'reserved' }] };
      },
    },
  ]);
  const server = useMcpServer(mcp);
  let engine: Engine;
  beforeAll(async () => {
    engine = await Engine.start({
      LLM_MODEL: 'm',
      LLM_TOOLS_FILE: writeToolsFile([
        { type: 'mcp', name: 'reserve', url: `${server.url}?key=\${TOOL_SECRET_ORDERS}` },
      ]),
      TOOL_SECRET_ORDERS: KEY,
    });
  });
  afterAll(() => engine?.stop());

  it('logs them at their level, the server named without its query, secrets masked', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => {});
    const log = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => {});
    try {
      const res = await fetch(`${engine.httpUrl}/api/tools/reserve/call`, { method: 'POST' });
      expect(await res.json()).toMatchObject({ ok: true, result: 'reserved' });
      const lines = (spy: typeof warn) =>
        spy.mock.calls.map((c) => String(c[0])).filter((l) => l.startsWith('MCP server '));
      expect(lines(warn)).toEqual([
        `MCP server ${server.url}: orders: stock low for SKU-1 (asked with [secret])`,
      ]);
      expect(lines(log)).toEqual([`MCP server ${server.url}: orders: {"sku":"SKU-1","left":2}`]);
    } finally {
      warn.mockRestore();
      log.mockRestore();
    }
  });
});
