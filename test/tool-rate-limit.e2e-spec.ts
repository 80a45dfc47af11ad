import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { useClientPerTest, useEngineRig } from './support/turn-harness.js';
import { writeToolsFile } from './support/tools-file.js';

const ADMIN = { Authorization: 'Bearer admin-key', 'Content-Type': 'application/json' };

/** A tool's `rate_limit`: an API with a quota of requests a second gets no more, and no 429. */
describe('tools whose API takes so many requests a second', () => {
  /** When each request reached the API, by path. */
  const arrived = new Map<string, number>();
  const rig = useEngineRig(
    (base) => ({
      LLM_MODEL: 'm',
      ADMIN_API_KEY: 'admin-key',
      LLM_TOOLS_FILE: writeToolsFile([
        {
          name: 'quota',
          url: `${base}/quota/{n}`,
          method: 'GET',
          rate_limit: { calls: 2, per_secs: 1 },
        },
        {
          name: 'scarce',
          url: `${base}/scarce/{n}`,
          method: 'GET',
          rate_limit: { calls: 1, per_secs: 60 },
          timeout_secs: 0.5,
        },
        // Down at first: its retry is a request of the quota too.
        {
          name: 'shaky',
          url: `${base}/shaky`,
          retries: 1,
          rate_limit: { calls: 1, per_secs: 1 },
        },
        {
          name: 'shaky_scarce',
          url: `${base}/shaky_scarce`,
          retries: 1,
          rate_limit: { calls: 1, per_secs: 60 },
          timeout_secs: 0.5,
        },
        // Two operations of one API, whose quota counts the requests of both.
        ...['crm_read', 'crm_write'].map((name) => ({
          name,
          url: `${base}/${name}`,
          rate_limit: { calls: 1, per_secs: 1, group: 'crm' },
        })),
      ]),
    }),
    (req, res) => {
      const again = arrived.has(req.path);
      arrived.set(req.path, performance.now());
      if (req.path.startsWith('/shaky') && !again) return void res.writeHead(503).end('busy');
      res.end(`done ${req.path}${again ? ' again' : ''}`);
    },
  );
  const client = useClientPerTest(rig);

  /** One turn in which the model makes three calls of `name` in one message; what the model read. */
  async function threeCalls(name: string) {
    const calls = [1, 2, 3].map((n) => ({ id: `call_${n}`, name, arguments: { n } }));
    rig.llm.requests.length = 0;
    rig.llm.enqueue(sseStructuredCalls(calls), sseText(['ok']));
    await client.ws.turn(`use ${name}`, 10_000);
    return rig.llm.requests[1]!.body.messages.filter((m: any) => m.role === 'tool').map(
      (m: any) => m.content,
    );
  }

  it('sends as many calls as the window allows at once, and the next when the first leaves it', async () => {
    expect(await threeCalls('quota')).toEqual(['done /quota/1', 'done /quota/2', 'done /quota/3']);
    // Begun a second apart in the engine; the requests' way over loopback varies a little.
    const [first, second, third] = [1, 2, 3].map((n) => arrived.get(`/quota/${n}`)!);
    expect(Math.abs(second! - first!)).toBeLessThan(500);
    expect(third! - Math.min(first!, second!)).toBeGreaterThanOrEqual(700);
    // The wait is counted as the queue's: two none, one about a second (less the time the calls'
    // turns took to reach their moments: on a busy machine, a tenth of a second or more).
    const metrics = await (await fetch(`${rig.engine.httpUrl}/metrics`, { headers: ADMIN })).text();
    expect(metrics).toMatch(/agent_engine_tool_queue_seconds_count\{tool="quota"\} 3\b/);
    const sum = Number(
      /agent_engine_tool_queue_seconds_sum\{tool="quota"\} ([\d.]+)/.exec(metrics)![1],
    );
    expect(sum).toBeGreaterThan(0.6);
  });

  it('does not send a call whose moment would come after the tool’s timeout, and says so at once', async () => {
    const started = performance.now();
    expect(await threeCalls('scarce')).toEqual([
      'done /scarce/1',
      'Error: tool request failed: not sent: this tool makes at most 1 call in 60s, and this one could not begin within 0.5s',
      'Error: tool request failed: not sent: this tool makes at most 1 call in 60s, and this one could not begin within 0.5s',
    ]);
    expect(performance.now() - started).toBeLessThan(5000);
    expect(rig.tools.requests.filter((r) => r.path.startsWith('/scarce'))).toHaveLength(1);
  });

  it('counts the calls of every tool naming the same group together', async () => {
    const calls = ['crm_read', 'crm_write'].map((name, i) => ({
      id: `call_${i}`,
      name,
      arguments: {},
    }));
    rig.llm.enqueue(sseStructuredCalls(calls), sseText(['ok']));
    await client.ws.turn('update the customer', 10_000);
    const [read, write] = ['/crm_read', '/crm_write'].map((path) => arrived.get(path)!);
    expect(Math.abs(write! - read!)).toBeGreaterThanOrEqual(700);
  });

  it("sends a retry at its own moment within the rate, or not at all past the tool's timeout", async () => {
    const call = async (name: string) => {
      rig.llm.requests.length = 0;
      const first = performance.now();
      rig.llm.enqueue(sseStructuredCalls([{ id: 'call_1', name, arguments: {} }]), sseText(['ok']));
      await client.ws.turn(`use ${name}`, 10_000);
      const read = rig.llm.requests[1]!.body.messages.findLast(
        (m: any) => m.role === 'tool',
      ).content;
      return { read, after: arrived.get(`/${name}`)! - first };
    };
    // Its backoff is 200 ms; its moment a second after the first request.
    const shaky = await call('shaky');
    expect(shaky.read).toBe('done /shaky again');
    expect(shaky.after).toBeGreaterThanOrEqual(700);
    // No moment within 0.5 s: the retry is not sent, and the model reads the first answer.
    expect((await call('shaky_scarce')).read).toBe('Error: HTTP 503 Service Unavailable — busy');
    expect(rig.tools.requests.filter((r) => r.path === '/shaky_scarce')).toHaveLength(1);
  });

  it('refuses a rate_limit it cannot keep, naming the field', async () => {
    for (const rate_limit of [
      { calls: 0, per_secs: 1 },
      { calls: 5 },
      { calls: 5, per_secs: 0.5 },
      { calls: 5, per_secs: 1, group: '' },
      10,
    ]) {
      const res = await fetch(`${rig.engine.httpUrl}/api/tools`, {
        method: 'POST',
        headers: ADMIN,
        body: JSON.stringify([{ name: 'bad', url: `${rig.toolsUrl}/bad`, rate_limit }]),
      });
      expect(res.status).toBe(400);
      expect(JSON.stringify(await res.json())).toContain('rate_limit');
    }
  });

  it('refuses the tools of one group giving it different limits, naming both', async () => {
    const crm = (name: string, calls: number) => ({
      name,
      url: `${rig.toolsUrl}/${name}`,
      rate_limit: { calls, per_secs: 60, group: 'crm' },
    });
    const res = await fetch(`${rig.engine.httpUrl}/api/tools`, {
      method: 'POST',
      headers: ADMIN,
      body: JSON.stringify([
        crm('crm_read', 100),
        { name: 'other', url: rig.toolsUrl },
        crm('crm_write', 10),
      ]),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toBe(
      "request body: tool #2 'crm_write': field 'rate_limit': group 'crm' makes at most 100 calls in 60s in tool #0, and its tools share that one quota: give each the same calls and per_secs",
    );
  });
});
