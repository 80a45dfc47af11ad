import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { type McpTestTool } from './support/mcp-server.js';
import { useMcpServerRig } from './support/mcp-server-rig.js';

const answer = () => ({ content: [{ type: 'text', text: 'ok' }] });
const lookup: McpTestTool = { name: 'lookup', description: 'Looks an order up.', answer };
const refund: McpTestTool = { name: 'refund', description: 'Refunds an order.', answer };
const pause = (ms: number) => () => new Promise((r) => setTimeout(r, ms));

/**
 * An MCP server restarted (a new release) lists what it lists now, and says nothing: it has no
 * session to say it on, and nothing changed for it. The engine reads its list again once it has a
 * session with it again: at once when the server forgot the session whose stream of messages the
 * engine held open, else at the next call.
 */
describe('an MCP server restarted with other tools', () => {
  const { server, rig, client, offered, offersAll, restart } = useMcpServerRig([lookup]);

  it('offers the new list at once when the server forgot the session the engine listened on', async () => {
    expect(await offered()).toEqual(['lookup']);
    await restart([lookup, refund], pause(0));
    // No call made: the engine's stream of the server's messages, opened again, was refused.
    await offersAll(['lookup', 'refund']);
    expect(server.mcp.calls).toEqual([]);
  });

  it('reads the list again at the next call when the server came back too late to say so', async () => {
    // Down longer than the SDK tries to open the stream again (three tries within ~3 s).
    await restart([lookup], pause(4000));
    await pause(500)();
    expect(await offered()).toEqual(['lookup', 'refund']);
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
