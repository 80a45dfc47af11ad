import fc from 'fast-check';
import { answersOn, useLoopback } from './support/calls-answered.js';
import { chaosOptions, FAULT_WORDS } from './support/chaos-checks.js';
import { ok, RawService, replies } from './support/raw-http.js';
import { callOnce, useEngineRig } from './support/turn-harness.js';
import { writeToolsFile } from './support/tools-file.js';
import { WsClient } from './support/ws-client.js';

/**
 * A code tool that reads a service as code in the wild does (requests, httpx, urllib), telling
 * what it got: the status, the text's length and start, or the exception raised and its words.
 */
const FETCH = `import requests
import httpx
import urllib.request

def fetch(url: str, how: str = "requests") -> list:
    """Reads a service."""
    try:
        if how == "httpx":
            r = httpx.get(url, timeout=3)
            return ["ok", r.status_code, len(r.text), r.text[:40]]
        if how == "urllib":
            with urllib.request.urlopen(url, timeout=3) as r:
                body = r.read()
                return ["ok", r.status, len(body), ""]
        r = requests.get(url, timeout=3)
        return ["ok", r.status_code, len(r.text), r.text[:40]]
    except Exception as e:
        return ["raised", type(e).__name__, str(e)[:300]]
`;

/**
 * Random answers of a service a code tool reads (statuses, types, encodings right or wrong,
 * lengths that lie, connections cut, bodies of any bytes or large), through requests, httpx and
 * urllib: each read gives the code a response or raises in Python, within the tool's time, and
 * what it tells reaches the model; the session answers on.
 */
describe('random answers of the services code tools read', () => {
  const service = new RawService();
  const base = useLoopback(service.server);
  const rig = useEngineRig(() => ({
    LLM_MODEL: 'm',
    LLM_TOOLS_FILE: writeToolsFile([{ type: 'python', code: FETCH, timeout_secs: 8 }]),
    CODE_TOOLS_WORKERS: '1',
    CODE_TOOLS_ALLOW_PRIVATE_NETWORK: 'true',
  }));

  it('give the code a response or an exception, and the model what it told', async () => {
    const ws = await WsClient.connect(rig.engine.wsUrl);
    const outcomes = new Set<string>();
    let n = 0;
    try {
      await fc.assert(
        fc.asyncProperty(
          replies(),
          fc.constantFrom('requests', 'httpx', 'urllib'),
          async (reply, how) => {
            service.replies.splice(0, Infinity, reply);
            const { read, result } = await callOnce(rig, ws, 'fetch', {
              url: `${base()}/r/${++n}`,
              how,
            });
            expect(result).toMatchObject({ ok: true });
            const told = JSON.parse(read) as [string, unknown, unknown];
            expect(['ok', 'raised']).toContain(told[0]);
            if (told[0] === 'raised') {
              expect(String(told[2])).not.toMatch(FAULT_WORDS);
              // A failure of its own kind, as the library raises it, not the library's base class.
              expect(['RequestException', 'RequestError', 'Exception']).not.toContain(told[1]);
            }
            outcomes.add(told[0]);
          },
        ),
        {
          ...chaosOptions(Number(process.env.CHAOS_RUNS ?? 30)),
          // Each outcome at least once, however few runs the time limit lets through: a sound
          // answer, and one cut short of the length it told.
          examples: [
            [ok('text/plain', 'fine'), 'requests'],
            [{ ...ok('text/plain', 'fine'), cutAt: 2 }, 'httpx'],
          ],
        },
      );
      await answersOn(rig.llm, ws);
    } finally {
      ws.close();
    }
    expect([...outcomes].sort()).toEqual(['ok', 'raised']);
  }, 240_000);
});
