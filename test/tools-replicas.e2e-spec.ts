import { Engine } from './support/engine.js';
import { FakeLlm, sseStructuredCalls, sseText } from './support/fake-llm.js';
import { RecordingServer } from './support/recording-server.js';
import { startRedis, type RedisRun } from './support/redis-server.js';
import { postTools, writeToolsFile } from './support/tools-file.js';
import { callOnce } from './support/turn-harness.js';
import { untilAsync } from './support/waiting.js';
import { putAtOnce, putTool, toolSet } from './support/tool-changes.js';
import { WsClient } from './support/ws-client.js';

/**
 * Two replicas sharing a Redis (SESSION_STORE_URL): a tool's service that one found down is not
 * called by the other either, and once one finds it back, both call it again; a tool's
 * `max_concurrency` and `rate_limit` hold across both.
 */
describe('tools across replicas sharing a Redis', () => {
  const llm = new FakeLlm();
  const api = new RecordingServer();
  let up = false;
  let running = 0;
  let most = 0;
  /** When each request of the rate-limited tool reached its API. */
  const paced: number[] = [];
  let redis: RedisRun;
  let replicas: [Engine, Engine];
  let env: Record<string, string>;
  beforeAll(async () => {
    redis = await startRedis();
    api.respond((req, res) => {
      if (req.path === '/fragile') {
        most = Math.max(most, ++running);
        return void setTimeout(() => res.end(`fragile: ${running--}`), 200);
      }
      if (req.path === '/paced') return void (paced.push(performance.now()), res.end('paced'));
      if (req.path === '/hours') return void res.end(`open 9 to 5 (answer ${api.requests.length})`);
      if (up) res.end('orders: fine');
      else res.writeHead(503).end('down');
    });
    const base = await api.start();
    env = {
      LLM_BASE_URL: await llm.start(),
      LLM_MODEL: 'm',
      LLM_TOOLS_FILE: writeToolsFile([
        { name: 'orders', url: `${base}/orders` },
        { name: 'fragile', url: `${base}/fragile`, max_concurrency: 2 },
        { name: 'hours', url: `${base}/hours`, method: 'GET', cache_secs: 60 },
        { name: 'paced', url: `${base}/paced`, rate_limit: { calls: 1, per_secs: 1 } },
      ]),
      LLM_TOOL_RETRIES: '0',
      LLM_TOOL_BREAKER_FAILURES: '1',
      LLM_TOOL_BREAKER_COOLDOWN_SECS: '1',
      SESSION_STORE_URL: redis.url,
    };
    replicas = [await Engine.start(env), await Engine.start(env)];
  });
  afterAll(async () => {
    for (const engine of replicas ?? []) await engine?.stop();
    await Promise.all([llm.stop(), api.stop(), redis?.stop()]);
  });

  /** What the model read of one call of `orders` in a turn on `engine`. */
  const call = async (engine: Engine) => {
    const ws = await WsClient.connect(engine.wsUrl);
    try {
      return (await callOnce({ llm }, ws, 'orders')).read;
    } finally {
      ws.close();
    }
  };
  const unavailable = async (engine: Engine) =>
    ((await (await fetch(`${engine.httpUrl}/health`)).json()) as any).tools.unavailable;

  it('spares the service on the other replica, and calls it again on both once one finds it back', async () => {
    const [a, b] = replicas;
    expect(await call(a)).toBe('Error: HTTP 503 Service Unavailable — down');
    expect(await unavailable(a)).toEqual(['orders']);
    // B has not called it yet: it takes A's word at its first call (Redis's pub/sub on loopback
    // brings the news in a millisecond or so).
    await new Promise((r) => setTimeout(r, 300));
    expect(await call(b)).toMatch(
      /^Error: tool request failed: not sent: the service is unavailable \(its last 1 calls failed\)/,
    );
    expect(api.requests).toHaveLength(1);
    expect(await unavailable(b)).toEqual(['orders']);
    // After B's cool-down, its call finds the service back: A sends its calls again too.
    await new Promise((r) => setTimeout(r, 1100));
    up = true;
    expect(await call(b)).toBe('orders: fine');
    await untilAsync(async () => (await unavailable(a)).length === 0, 'A hearing it is back');
    expect(await call(a)).toBe('orders: fine');
    expect(api.requests).toHaveLength(3);
  });

  it('runs at most max_concurrency calls of a tool at once across the replicas', async () => {
    llm.fallback = (body) =>
      body.messages.at(-1).role === 'tool'
        ? sseText(['ok'])
        : sseStructuredCalls([{ id: 'call_1', name: 'fragile', arguments: {} }]);
    const clients = await Promise.all(
      [0, 1, 2, 3, 4, 5].map((i) => WsClient.connect(replicas[i % 2]!.wsUrl)),
    );
    const turns = await Promise.all(clients.map((ws) => ws.turn('go', 10_000)));
    clients.forEach((ws) => ws.close());
    for (const turn of turns)
      expect(turn.find((m) => m.type === 'tool_result')).toMatchObject({ ok: true });
    expect(api.requests.filter((r) => r.path === '/fragile')).toHaveLength(6);
    expect(most).toBe(2);
  });

  it('keeps a tool to its rate_limit across the replicas', async () => {
    llm.fallback = (body) =>
      body.messages.at(-1).role === 'tool'
        ? sseText(['ok'])
        : sseStructuredCalls([{ id: 'call_1', name: 'paced', arguments: {} }]);
    const clients = await Promise.all(replicas.map((r) => WsClient.connect(r.wsUrl)));
    const turns = await Promise.all(clients.map((ws) => ws.turn('go', 10_000)));
    clients.forEach((ws) => ws.close());
    for (const turn of turns)
      expect(turn.find((m) => m.type === 'tool_result')).toMatchObject({ ok: true });
    // One a second, whichever replica made it (give or take the requests' way over loopback).
    expect(paced).toHaveLength(2);
    expect(Math.abs(paced[1]! - paced[0]!)).toBeGreaterThanOrEqual(700);
  });

  it("answers a request another replica sent with its result, within the tool's cache_secs", async () => {
    const hours = async (engine: Engine) => {
      const ws = await WsClient.connect(engine.wsUrl);
      try {
        const { read, result } = await callOnce({ llm }, ws, 'hours');
        return `${read}${result.cached ? ' (cached)' : ''}`;
      } finally {
        ws.close();
      }
    };
    const [a, b] = replicas;
    const first = await hours(a);
    expect(first).toMatch(/^open 9 to 5 \(answer \d+\)$/);
    expect(await hours(b)).toBe(`${first} (cached)`);
    expect(await hours(a)).toBe(`${first} (cached)`);
    expect(api.requests.filter((r) => r.path === '/hours')).toHaveLength(1);
  });

  it('installs tools posted to one replica in the other, and in one started later', async () => {
    const [a, b] = replicas;
    const names = async (engine: Engine) =>
      ((await (await fetch(`${engine.httpUrl}/api/tools`)).json()) as any).tools.map(
        (t: { name: string }) => t.name,
      );
    const posted = [{ name: 'opening_hours', url: 'http://crm.example/hours', method: 'GET' }];
    expect((await postTools(a.httpUrl, posted)).status).toBe(200);
    expect(await names(a)).toEqual(['opening_hours']);
    await untilAsync(async () => (await names(b)).join() === 'opening_hours', 'B installing it');
    const later = await Engine.start(env);
    try {
      expect(await names(later)).toEqual(['opening_hours']);
    } finally {
      await later.stop();
    }
  });

  it('keeps every one of many tool changes made at once on both replicas, and refuses a stale If-Match on either', async () => {
    const urls = replicas.map((r) => r.httpUrl);
    expect(
      (await postTools(urls[0]!, [{ name: 'first', url: 'http://crm.example/a' }])).status,
    ).toBe(200);
    await untilAsync(
      async () => (await toolSet(urls[1]!)).names.join() === 'first',
      'B installing it',
    );
    const { etag } = await toolSet(urls[1]!);
    const names = ['t1', 't2', 't3', 't4', 't5', 't6', 't7', 't8'];
    expect(await putAtOnce(urls, names)).toEqual(names.map(() => 200));
    const every = ['first', ...names].join();
    const both = async () => Promise.all(urls.map((u) => toolSet(u)));
    await untilAsync(
      async () => (await both()).every((set) => [...set.names].sort().join() === every),
      'both replicas holding every change',
    );
    const [a, b] = await both();
    expect(a!.etag).toBe(b!.etag);
    const stale = await Promise.all(urls.map((u) => putTool(u, 'late', {}, etag)));
    expect(stale.map((r) => r.status)).toEqual([412, 412]);
  });
});
