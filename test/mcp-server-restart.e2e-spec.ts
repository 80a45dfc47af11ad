import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { McpTestServer, type McpTestTool } from './support/mcp-server.js';
import { writeToolsFile } from './support/tools-file.js';
import { offeredNames, useClientPerTest, useEngineRig } from './support/turn-harness.js';
import { untilAsync } from './support/waiting.js';

const answer = () => ({ content: [{ type: 'text', text: 'ok' }] });
const lookup: McpTestTool = { name: 'lookup', description: 'Looks an order up.', answer };
const refund: McpTestTool = { name: 'refund', description: 'Refunds an order.', answer };

/**
 * An MCP server restarted (a new release) lists what it lists now, and says nothing: it has no
 * session to say it on, and nothing changed for it. The engine reads its list again once it has a
 * session with it again: at once when the server forgot the session whose stream of messages the
 * engine held open, else at the next call.
 */
describe('an MCP server restarted with other tools', () => {
  let mcp = new McpTestServer([lookup]);
  let url = '';
  beforeAll(async () => {
    url = await mcp.start();
  });
  afterAll(() => mcp.stop());
  const rig = useEngineRig(() => ({
    LLM_MODEL: 'm',
    LLM_TOOLS_FILE: writeToolsFile([{ type: 'mcp', url, tools: '*' }]),
  }));
  const client = useClientPerTest(rig);

  /** The server stopped, then started again on its port `afterMs` later, listing `tools`. */
  const restart = async (tools: McpTestTool[], afterMs: number) => {
    await mcp.stop();
    await new Promise((r) => setTimeout(r, afterMs));
    mcp = new McpTestServer(tools);
    await mcp.start(Number(new URL(url).port));
  };
  const offersAll = (names: string[]) =>
    untilAsync(
      async () => JSON.stringify(await offeredNames(rig, client.ws)) === JSON.stringify(names),
      `${names.join(', ')} offered`,
      10_000,
    );

  it('offers the new list at once when the server forgot the session the engine listened on', async () => {
    expect(await offeredNames(rig, client.ws)).toEqual(['lookup']);
    await restart([lookup, refund], 0);
    // No call made: the engine's stream of the server's messages, opened again, was refused.
    await offersAll(['lookup', 'refund']);
    expect(mcp.calls).toEqual([]);
  });

  it('reads the list again at the next call when the server came back too late to say so', async () => {
    // Down longer than the SDK tries to open the stream again (three tries within ~3 s).
    await restart([lookup], 4000);
    await new Promise((r) => setTimeout(r, 500));
    expect(await offeredNames(rig, client.ws)).toEqual(['lookup', 'refund']);
    rig.llm.reset();
    rig.llm.enqueue(
      sseStructuredCalls([{ id: 'call_1', name: 'lookup', arguments: {} }]),
      sseText(['ok']),
    );
    const turn = await client.ws.turn('look it up', 10_000);
    expect(turn.find((m) => m.type === 'tool_result')).toMatchObject({ ok: true });
    await offersAll(['lookup']);
  });
});
