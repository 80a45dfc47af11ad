import { sseRawArgumentsCall, sseText } from './support/fake-llm.js';
import { useEngineRig } from './support/turn-harness.js';
import { writeToolsFile } from './support/tools-file.js';
import { WsClient } from './support/ws-client.js';
import { useLoopback } from './support/calls-answered.js';
import { RawMcpServer } from './support/raw-mcp-server.js';

/** Half of 😀 ('\ud83d\ude00'): a client's text cut by UTF-16 length. */
const CUT = 'Look \ud83d';
/** What JSON writes for it, which a reader in UTF-8 (Python's, Rust's, a database) refuses. */
const ESCAPE = /\\ud8[0-9a-f]{2}/i;

async function until(test: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !test(); waited += 20) {
    if (waited > 5000) throw new Error(`${what} within 5 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('half a character, in what the engine writes for others', () => {
  const rig = useEngineRig((base) => ({
    LLM_MODEL: 'm',
    ADMIN_API_KEY: 'adm-1',
    SESSION_WEBHOOK_URL: `${base}/report`,
  }));

  it('comes as U+FFFD in the HTTP API and in the session report', async () => {
    const ws = await WsClient.connect(rig.engine.wsUrl);
    const id = ws.messages[0]!.session_id as string;
    rig.llm.enqueue(sseText(['Nice.']));
    await ws.turn(CUT);
    const answer = await fetch(`${rig.engine.httpUrl}/api/sessions/${id}`, {
      headers: { Authorization: 'Bearer adm-1' },
    });
    const raw = await answer.text();
    expect(answer.status).toBe(200);
    expect(raw).not.toMatch(ESCAPE);
    expect(raw).toContain('Look \ufffd');

    ws.close();
    await until(() => rig.tools.requests.some((r) => r.path === '/report'), 'no report came');
    const report = rig.tools.requests.find((r) => r.path === '/report')!.body;
    expect(report).not.toMatch(ESCAPE);
    expect(report).toContain('Look \ufffd');
  });
});

describe('half a character in the arguments of an MCP call', () => {
  const mcp = new RawMcpServer();
  const base = useLoopback(mcp.server);
  const rig = useEngineRig(() => ({
    LLM_MODEL: 'm',
    LLM_TOOLS_FILE: writeToolsFile([{ type: 'mcp', name: 'lookup', url: `${base()}/mcp` }]),
  }));

  it('reaches the server as U+FFFD', async () => {
    const ws = await WsClient.connect(rig.engine.wsUrl);
    try {
      rig.llm.enqueue(sseRawArgumentsCall('lookup', '{"q": "Lima\\ud800"}'), sseText(['Done.']));
      expect((await ws.turn('Find Lima')).at(-1)).toMatchObject({ text: 'Done.' });
      expect(mcp.callBodies).toHaveLength(1);
      expect(mcp.callBodies[0]).not.toMatch(ESCAPE);
      expect(JSON.parse(mcp.callBodies[0]!).params.arguments).toEqual({ q: 'Lima\ufffd' });
    } finally {
      ws.close();
    }
  });
});
