import { McpTestServer, type McpTestTool } from './mcp-server.js';
import { writeToolsFile } from './tools-file.js';
import { offeredNames, useClientPerTest, useEngineRig } from './turn-harness.js';
import { untilAsync } from './waiting.js';

/**
 * A test MCP server (`options` as McpTestServer's) listing `tools`, and an engine (with `env`)
 * whose tools file takes all of them (`"tools": "*"`), before the block's tests; a client each
 * test.
 */
export function useMcpServerRig(
  tools: McpTestTool[],
  options: ConstructorParameters<typeof McpTestServer>[1] = {},
  env: Record<string, string> = {},
) {
  const server = { mcp: new McpTestServer(tools, options), url: '' };
  beforeAll(async () => {
    server.url = await server.mcp.start();
  });
  afterAll(() => server.mcp.stop());
  const rig = useEngineRig(() => ({
    LLM_MODEL: 'm',
    LLM_TOOLS_FILE: writeToolsFile([{ type: 'mcp', url: server.url, tools: '*' }]),
    ...env,
  }));
  const client = useClientPerTest(rig);
  return {
    server,
    rig,
    client,
    /** The names of the tools the next turn offers the model. */
    offered: () => offeredNames(rig, client.ws),
    /** Waits (up to 10 s) until a turn offers the model `names`, in that order. */
    offersAll: (names: string[]) =>
      untilAsync(
        async () => JSON.stringify(await offeredNames(rig, client.ws)) === JSON.stringify(names),
        `${names.join(', ') || 'nothing'} offered`,
        10_000,
      ),
    /**
     * The server stopped, `whileDown` awaited, then a new one started on its port, listing
     * `tools` (a restart: a new release).
     */
    restart: async (next: McpTestTool[], whileDown: () => Promise<unknown>) => {
      await server.mcp.stop();
      await whileDown();
      server.mcp = new McpTestServer(next, options);
      await server.mcp.start(Number(new URL(server.url).port));
    },
  };
}
