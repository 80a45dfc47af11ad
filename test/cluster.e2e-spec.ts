import { get } from 'node:http';
import { useTwoProcesses } from './support/built-engine.js';
import { FakeLlm, sseText } from './support/fake-llm.js';
import { RecordingServer } from './support/recording-server.js';
import { postTools, writeToolsFile } from './support/tools-file.js';
import { xmlCall } from './support/turn-harness.js';
import { WsClient } from './support/ws-client.js';
import { expectTwoASecond, expectTwoAtOnce, turnsCalling } from './support/limited-calls.js';
import { TokenServer } from './support/token-server.js';
import { installedSizes, putAtOnce, putTool, toolSet } from './support/tool-changes.js';

interface Health {
  pid: number;
  tools: { count: number; source: string; unavailable: string[] };
}

/** One request on a connection of its own: node:cluster hands connections out round-robin. */
function health(url: string): Promise<Health> {
  return new Promise((resolve, reject) => {
    const req = get(`${url}/health`, { agent: false, timeout: 2000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve(JSON.parse(body) as Health));
    });
    req.on('timeout', () => req.destroy(new Error('no answer from /health')));
    req.on('error', reject);
  });
}

/** Asks /health until every pid in `pids` has answered (or `tries` requests were made). */
async function healthByPid(url: string, tries = 20): Promise<Map<number, Health>> {
  const seen = new Map<number, Health>();
  for (let i = 0; i < tries && seen.size < 2; i++) {
    // A connection handed to a process that has just died gets no answer: ask again.
    const h = await health(url).catch(() => undefined);
    if (h) seen.set(h.pid, h);
  }
  return seen;
}

describe('ENGINE_PROCESSES=2: two engine processes on one port', () => {
  const llm = new FakeLlm();
  const tools = new RecordingServer();
  let base: string;
  const engine = useTwoProcesses(async () => {
    base = await tools.start();
    return {
      LLM_BASE_URL: await llm.start(),
      LLM_MODEL: 'qwen3-coder',
      LLM_TOOLS_FILE: writeToolsFile([{ name: 'from_file', url: `${base}/file` }]),
      LLM_TOOL_RETRIES: '0',
      LLM_TOOL_BREAKER_FAILURES: '2',
      LLM_TOOL_BREAKER_COOLDOWN_SECS: '1',
      TOOL_SECRET_IDP: 's3cret:&',
    };
  });
  afterAll(() => Promise.all([llm.stop(), tools.stop()]));

  /** Installs one HTTP tool, `lookup`, through whichever process takes the connection. */
  const postLookupTool = () =>
    postTools(engine().url, [{ name: 'lookup', url: `${base}/lookup/{id}` }]);

  it('changes no process on a dry run', async () => {
    const dry = await fetch(`${engine().url}/api/tools?dry_run=true`, {
      method: 'POST',
      body: JSON.stringify([{ name: 'lookup', url: `${base}/lookup/{id}` }]),
    });
    expect(await dry.json()).toMatchObject({ source: 'request', dry_run: true });
    // Another process would have installed it by the time the POST answers.
    const seen = await healthByPid(engine().url);
    expect(seen.size).toBe(2);
    for (const h of seen.values())
      expect(h.tools).toEqual({ count: 1, source: 'file', unavailable: [] });
  });

  it('serves from both processes; a POST /api/tools reaches both, and a replacement process', async () => {
    const before = await healthByPid(engine().url);
    expect(before.size).toBe(2);
    for (const h of before.values())
      expect(h.tools).toEqual({ count: 1, source: 'file', unavailable: [] });

    expect((await postLookupTool()).status).toBe(200);
    // The POST answers once every process has the tools: no stale process right after it.
    const after = await healthByPid(engine().url);
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    for (const h of after.values())
      expect(h.tools).toEqual({ count: 1, source: 'request', unavailable: [] });

    // A process that dies is replaced, and the replacement takes the override in force.
    const [victim] = [...after.keys()];
    process.kill(victim!, 'SIGKILL');
    let replaced = await healthByPid(engine().url);
    for (let i = 0; i < 100 && (replaced.has(victim!) || replaced.size < 2); i++) {
      await new Promise((r) => setTimeout(r, 200));
      replaced = await healthByPid(engine().url);
    }
    expect(replaced.has(victim!)).toBe(false);
    expect(replaced.size).toBe(2);
    for (const h of replaced.values())
      expect(h.tools).toEqual({ count: 1, source: 'request', unavailable: [] });
  }, 60000);

  it('runs turns with a posted tool on every connection', async () => {
    expect((await postLookupTool()).status).toBe(200);
    llm.fallback = (body) =>
      body.messages.at(-1).role === 'tool'
        ? sseText(['Done.'])
        : sseText([xmlCall('lookup', { id: String(body.messages.length) })]);
    tools.requests.length = 0;
    const clients = await Promise.all([1, 2, 3, 4].map(() => WsClient.connect(engine().wsUrl)));
    const ends = await Promise.all(
      clients.map(async (c) => {
        c.send({ type: 'user_text', text: 'look it up' });
        return c.waitFor((m) => m.type === 'assistant_end', 0, 10000);
      }),
    );
    for (const end of ends) expect(end).toMatchObject({ type: 'assistant_end', text: 'Done.' });
    // Whichever process answers the scrape, it reports all of them.
    for (let scrape = 0; scrape < 4; scrape++) {
      const text = await (await fetch(`${engine().url}/metrics`)).text();
      expect(text).toMatch(/^agent_engine_ws_sessions 4$/m);
      expect(text).toMatch(/^agent_engine_turns_total\{outcome="completed"\} 4$/m);
      expect(text).toMatch(/^agent_engine_tool_calls_total\{tool="lookup",ok="true"\} 4$/m);
    }
    expect(tools.requests.map((r) => r.path.startsWith('/lookup/'))).toEqual([
      true,
      true,
      true,
      true,
    ]);
    clients.forEach((c) => c.close());
  }, 30000);

  it('spares a service down in every process once one found it down, and calls it again once one finds it back', async () => {
    expect(
      (await postTools(engine().url, [{ name: 'orders', url: `${base}/orders` }])).status,
    ).toBe(200);
    let up = false;
    tools.respond((_req, res) => (up ? res.end('orders: fine') : res.writeHead(503).end('down')));
    // "twice": two calls in one round, both failing in one process: its circuit opens.
    llm.fallback = (body) => {
      const last = body.messages.at(-1);
      if (last.role === 'tool') return sseText(['Done.']);
      const call = xmlCall('orders', {});
      return sseText(last.content === 'twice' ? [call, call] : [call]);
    };
    tools.requests.length = 0;
    const turn = async (text: string) => {
      const client = await WsClient.connect(engine().wsUrl);
      client.send({ type: 'user_text', text });
      await client.waitFor((m) => m.type === 'assistant_end', 0, 10000);
      client.close();
      return llm.requests.at(-1)!.body.messages.filter((m: any) => m.role === 'tool');
    };
    expect((await turn('twice')).map((m: any) => m.content)).toEqual([
      'Error: HTTP 503 Service Unavailable — down',
      'Error: HTTP 503 Service Unavailable — down',
    ]);
    // Connections alternate between the processes: the other process spares the service too.
    for (let i = 0; i < 4; i++)
      expect((await turn('once'))[0].content).toMatch(
        /^Error: tool request failed: not sent: the service is unavailable/,
      );
    expect(tools.requests).toHaveLength(2);
    for (const h of (await healthByPid(engine().url)).values())
      expect(h.tools.unavailable).toEqual(['orders']);
    expect(engine().output).toContain(
      "tool 'orders': another engine process found the service down; its calls are not sent here either",
    );
    // After the cool-down one call finds it back: both processes send its calls again.
    await new Promise((r) => setTimeout(r, 1100));
    up = true;
    expect((await turn('once'))[0].content).toBe('orders: fine');
    let seen = await healthByPid(engine().url);
    for (let i = 0; i < 20 && [...seen.values()].some((h) => h.tools.unavailable.length); i++) {
      await new Promise((r) => setTimeout(r, 100));
      seen = await healthByPid(engine().url);
    }
    expect([...seen.values()].map((h) => h.tools.unavailable)).toEqual([[], []]);
    expect(tools.requests).toHaveLength(3);
  }, 30000);

  it('runs at most max_concurrency calls of a tool at once across the processes', async () => {
    const fragile = { name: 'fragile', url: `${base}/fragile`, max_concurrency: 2 };
    expect((await postTools(engine().url, [fragile])).status).toBe(200);
    await expectTwoAtOnce(engine().url, llm, tools, 'fragile');
  }, 30000);

  it('keeps a tool to its rate_limit across the processes', async () => {
    const paced = { name: 'paced', url: `${base}/paced`, rate_limit: { calls: 2, per_secs: 1 } };
    expect((await postTools(engine().url, [paced])).status).toBe(200);
    await expectTwoASecond(engine().url, llm, tools, 'paced');
  }, 30000);

  it('asks the OAuth 2.0 token endpoint once for both processes (no Redis: through the primary)', async () => {
    const idp = new TokenServer();
    try {
      const secured = {
        name: 'secured',
        url: `${base}/secured`,
        oauth2: {
          token_url: await idp.start(),
          client_id: 'agent',
          client_secret: '${TOOL_SECRET_IDP}',
        },
      };
      expect((await postTools(engine().url, [secured])).status).toBe(200);
      tools.respond((_req, res) => res.end('ok'));
      tools.requests.length = 0;
      // One turn gets the token; then sessions on both processes (connections go to each in turn).
      for (const sessions of [1, 4])
        for (const turn of await turnsCalling(engine().url, llm, 'secured', sessions))
          expect(turn.find((m) => m.type === 'tool_result')).toMatchObject({ ok: true });
      expect(tools.requests.map((r) => r.headers.authorization)).toEqual(
        Array(5).fill('Bearer tok-1'),
      );
      expect(idp.requests).toHaveLength(1);
    } finally {
      await idp.stop();
    }
  }, 30000);

  it('answers a cache_secs tool from the result one process got, in both (no Redis: through the primary)', async () => {
    const hours = { name: 'hours', url: `${base}/hours`, method: 'GET', cache_secs: 60 };
    expect((await postTools(engine().url, [hours])).status).toBe(200);
    tools.respond((_req, res) => res.end('open 9 to 5'));
    tools.requests.length = 0;
    const results: unknown[] = [];
    for (const sessions of [1, 4])
      for (const turn of await turnsCalling(engine().url, llm, 'hours', sessions))
        results.push(turn.find((m) => m.type === 'tool_result'));
    expect(tools.requests).toHaveLength(1);
    expect(results[0]).toMatchObject({ ok: true });
    expect(results[0]).not.toHaveProperty('cached');
    for (const result of results.slice(1)) expect(result).toMatchObject({ ok: true, cached: true });
  }, 30000);

  it('keeps every one of many tool changes made at once in different processes, and refuses a stale If-Match in either', async () => {
    expect((await postTools(engine().url, [{ name: 'first', url: `${base}/first` }])).status).toBe(
      200,
    );
    const { etag } = await toolSet(engine().url);
    const logged = engine().output.length;
    const names = ['t1', 't2', 't3', 't4', 't5', 't6', 't7', 't8'];
    expect(await putAtOnce([engine().url], names)).toEqual(names.map(() => 200));
    const every = ['first', ...names];
    // Both processes hold every change (connections go to each in turn), under one ETag.
    const seen = await Promise.all([1, 2, 3, 4].map(() => toolSet(engine().url)));
    for (const set of seen) expect(set.names.sort()).toEqual(every);
    expect(new Set(seen.map((s) => s.etag)).size).toBe(1);
    // The log says what each change did (a set installed may bring several changes at once).
    for (const name of names)
      expect(engine().output).toMatch(
        new RegExp(`\\(added [^)]*\\b${name}\\b[^)]*\\); they apply`),
      );
    // Every change adds a tool: no process ever went back to an earlier set, whatever order the
    // changes reached it in.
    const sizes = installedSizes(engine().output.slice(logged));
    expect(sizes.size).toBe(2);
    for (const seenSizes of sizes.values())
      expect(seenSizes).toEqual([...seenSizes].sort((a, b) => a - b));
    const stale = await Promise.all([1, 2].map(() => putTool(engine().url, 'late', {}, etag)));
    expect(stale.map((r) => r.status)).toEqual([412, 412]);
  }, 30000);
});
