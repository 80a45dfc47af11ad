import { sseCall, sseText } from './support/fake-llm.js';
import { useEngineRig } from './support/turn-harness.js';
import { writeToolsFile } from './support/tools-file.js';
import { WsClient } from './support/ws-client.js';
import { turnWithCalls, useLoopback } from './support/calls-answered.js';
import { RawMcpServer } from './support/raw-mcp-server.js';

const stream = (events: string) => ({
  status: 200,
  type: 'text/event-stream',
  body: () => events,
});

/**
 * An MCP server answering a call on an event stream that ends before the answer (it crashed,
 * or a proxy closed the stream): the call fails at once saying so, rather than waiting out its
 * `timeout_secs`, and the server's next answer is read as usual.
 */
describe('an MCP answer stream that ends without the answer', () => {
  const mcp = new RawMcpServer();
  const base = useLoopback(mcp.server);
  const rig = useEngineRig(() => ({
    LLM_MODEL: 'm',
    LLM_TOOLS_FILE: writeToolsFile([
      { type: 'mcp', name: 'lookup', url: `${base()}/mcp`, timeout_secs: 30 },
    ]),
  }));

  it('fails the call saying so, and the next call is answered', async () => {
    const ws = await WsClient.connect(rig.engine.wsUrl);
    try {
      const progress = JSON.stringify({
        jsonrpc: '2.0',
        method: 'notifications/message',
        params: { level: 'info', data: 'working' },
      });
      mcp.answers.push(stream(`event: message\ndata: ${progress}\n\n`));
      rig.llm.enqueue(sseCall('c1', 'lookup', { q: 'x' }), sseText(['Done.']));
      const [cut] = await turnWithCalls(rig.llm, ws, ['c1']);
      expect(cut!.result.ok).toBe(false);
      expect(cut!.read).toMatch(/the MCP server ended its answer without a result/);

      rig.llm.reset();
      rig.llm.enqueue(sseCall('c2', 'lookup', { q: 'y' }), sseText(['Done.']));
      const [next] = await turnWithCalls(rig.llm, ws, ['c2']);
      expect([next!.result.ok, next!.read]).toEqual([true, 'found']);
    } finally {
      ws.close();
    }
  }, 20_000);
});
