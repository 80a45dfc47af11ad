import { queryObjects } from 'node:v8';
import { collectGarbage } from './support/gc.js';
import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { McpTestServer, useMcpServer } from './support/mcp-server.js';
import { writeToolsFile } from './support/tools-file.js';
import { useEngineRig } from './support/turn-harness.js';
import { WsClient } from './support/ws-client.js';
import { TurnMeter } from '../src/metrics/meters.js';

/** A code tool reaching the web, an HTTP tool and an MCP tool in one call. */
const ROUND_TRIP = `def round_trip(slow: bool = False) -> dict:
    """Asks everyone."""
    r = ces_requests.get("BASE/direct")
    a = tools.lookup({"slow": False})
    b = tools.mcp_lookup({"slow": slow})
    return {"status": r.status_code, "http": str(a)[:20], "mcp": str(b)[:20]}
`;

/**
 * What a turn leaves once it has ended: nothing that holds it. A listener left on a signal Node
 * keeps (a composite or timeout signal that has listeners is held for as long as they are there)
 * kept every MCP call's whole turn for the life of the process, ~20 KB a call. Turns of every kind
 * of call, answered, declined or cut short, and then no turn of theirs is left in memory.
 */
describe('turns collected once over', () => {
  const mcp = new McpTestServer([
    {
      name: 'lookup',
      annotations: { readOnlyHint: true },
      answer: async (args, { signal }) => {
        if (args.slow)
          await new Promise((done) => signal.addEventListener('abort', done, { once: true }));
        return { content: [{ type: 'text', text: 'found' }] };
      },
    },
  ]);
  const server = useMcpServer(mcp);
  const rig = useEngineRig(
    (base) => ({
      LLM_MODEL: 'm',
      CODE_TOOLS_WORKERS: '1',
      CODE_TOOLS_ALLOW_PRIVATE_NETWORK: 'true',
      LLM_TOOLS_FILE: writeToolsFile([
        { name: 'lookup', url: `${base}/lookup?slow={slow}`, method: 'GET' },
        { name: 'delete_order', url: `${base}/delete`, method: 'POST', confirm: true },
        { type: 'mcp', name: 'mcp_lookup', tool: 'lookup', url: server.url },
        { type: 'python', code: ROUND_TRIP.replace('BASE', base) },
      ]),
    }),
    // A slow lookup is answered only when its call is cut short (never).
    (req, res) => void (req.query.slow === 'true' ? undefined : res.end('{"ok":true}')),
  );

  /** One turn calling `name`: answered, or cut short once its call is under way. */
  const turn = async (ws: WsClient, name: string, cut: boolean) => {
    // A turn cut short asks the model no more.
    rig.llm.enqueue(
      sseStructuredCalls([{ id: `call_${name}`, name, arguments: { slow: cut } }]),
      ...(cut ? [] : [sseText(['Done.'])]),
    );
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: `use ${name}` });
    if (name === 'delete_order') {
      const ask = await ws.waitFor((m) => m.type === 'tool_confirm', from);
      ws.send(cut ? { type: 'interrupt' } : { type: 'tool_confirm', id: ask.id, approved: true });
    } else if (cut) {
      await ws.waitFor((m) => m.type === 'tool_call', from);
      await new Promise((r) => setTimeout(r, 100));
      ws.send({ type: 'interrupt' });
    }
    const end = await ws.waitFor((m) => m.type === 'assistant_end', from, 15_000);
    const result = ws.messages.slice(from).find((m) => m.type === 'tool_result');
    return `${name}: ${end.interrupted ? 'cut' : result?.ok ? 'answered' : 'failed'}`;
  };

  it('keeps no turn of any kind of call, answered or cut short', async () => {
    const live = () => {
      collectGarbage();
      return queryObjects(TurnMeter, { format: 'count' });
    };
    const before = live();
    const outcomes: string[] = [];
    for (const name of ['lookup', 'mcp_lookup', 'round_trip', 'delete_order']) {
      const ws = await WsClient.connect(rig.engine.wsUrl);
      for (let i = 0; i < 6; i++) outcomes.push(await turn(ws, name, i % 2 === 1));
      ws.close();
      await ws.closed;
    }
    expect(new Set(outcomes)).toEqual(
      new Set(
        ['lookup', 'mcp_lookup', 'round_trip', 'delete_order'].flatMap((name) => [
          `${name}: answered`,
          `${name}: cut`,
        ]),
      ),
    );
    await new Promise((r) => setTimeout(r, 200));
    expect(live() - before).toBeLessThanOrEqual(0);
  }, 60_000);
});
