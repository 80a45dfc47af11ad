import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpTestServer, ORDER_SCHEMA } from './mcp-server.js';

/**
 * An MCP server offering `lookup_order`, not started: `port` is one nothing listens on yet, where
 * a test starts it; `definition()` the tool's entry of a tools file.
 */
export function useServerDown() {
  const down = {
    mcp: new McpTestServer([
      {
        name: 'lookup_order',
        description: 'Status of an order by its number.',
        inputSchema: ORDER_SCHEMA,
        answer: (args) => ({ content: [{ type: 'text', text: `Order ${String(args.order_id)}` }] }),
      },
    ]),
    port: 0,
    definition: () => ({
      type: 'mcp',
      name: 'lookup_order',
      url: `http://127.0.0.1:${down.port}/mcp`,
    }),
  };
  afterAll(() => down.mcp.stop());
  beforeAll(async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    down.port = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
  }, 20_000);
  return down;
}
