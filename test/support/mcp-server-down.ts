import { laterPort } from './ports.js';
import { McpTestServer, ORDER_SCHEMA } from './mcp-server.js';
import { writeToolsFile } from './tools-file.js';
import { useClientPerTest, useEngineRig } from './turn-harness.js';

/**
 * An MCP server offering `lookup_order`, not started: `port` is one nothing listens on yet (see
 * laterPort), where a test starts it; `definition()` the tool's entry of a tools file.
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
    down.port = await laterPort();
  }, 20_000);
  return down;
}

/**
 * The engine started on a tools file of `get_weather` and the `entries` of a server that is down
 * (see useServerDown), a client per test, and what `/health` says of the tools.
 */
export function useServerDownRig(entries: (down: ReturnType<typeof useServerDown>) => unknown[]) {
  const down = useServerDown();
  const rig = useEngineRig((base) => ({
    LLM_MODEL: 'm',
    LLM_TOOL_BREAKER_COOLDOWN_SECS: '0.3',
    LLM_TOOLS_FILE: writeToolsFile([
      { name: 'get_weather', url: `${base}/{city}`, method: 'GET' },
      ...entries(down),
    ]),
  }));
  const client = useClientPerTest(rig);
  const health = async () =>
    ((await (await fetch(`${rig.engine.httpUrl}/health`)).json()) as any).tools;
  return { down, rig, client, health };
}
