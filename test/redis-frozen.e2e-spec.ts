import { RedisSessionStore } from '../src/sessions/redis-session-store.js';
import { Engine } from './support/engine.js';
import { sseCall, sseText, useFakeLlm } from './support/fake-llm.js';
import { useRecordingServer } from './support/recording-server.js';
import { writeToolsFile } from './support/tools-file.js';
import { startRedis, type RedisRun } from './support/redis-server.js';
import { WsClient } from './support/ws-client.js';

/** Settles with `promise`'s outcome, or says `what` did not happen within `ms`. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A Redis (SESSION_STORE_URL) that keeps its connections open and stops answering (a frozen
 * server, a network dropping packets, a node drained with the engine's): the engine goes on as if
 * Redis were away, keeps sessions again once it answers, and still stops when it never does.
 */
describe('a Redis that stops answering', () => {
  const { llm, url } = useFakeLlm();
  const tools = useRecordingServer();
  let redis: RedisRun;
  beforeEach(async () => (redis = await startRedis()));
  afterEach(() => redis.stop());

  it('stops once the last session saves have had their time', async () => {
    const engine = await Engine.start({
      LLM_BASE_URL: url(),
      LLM_MODEL: 'm',
      SESSION_STORE_URL: redis.url,
    });
    llm.fallback = () => sseText(['Fine.']);
    const ws = await WsClient.connect(engine.wsUrl);
    await ws.waitFor((m) => m.type === 'session');
    expect((await ws.turn('hi', 5000)).at(-1)).toMatchObject({ type: 'assistant_end' });
    redis.freeze();
    // The closed connection's save is written to a server that never answers.
    ws.close();
    await ws.closed;
    await within(engine.stop(), 15_000, 'the engine did not stop');
  }, 30_000);

  it('goes on while it is frozen, each session and call as if it were away, and keeps sessions again once it answers', async () => {
    const engine = await Engine.start({
      LLM_BASE_URL: url(),
      LLM_MODEL: 'm',
      SESSION_STORE_URL: redis.url,
      LLM_TOOLS_FILE: writeToolsFile([
        { name: 'fragile', url: `${tools.url()}/fragile`, max_concurrency: 1 },
      ]),
    });
    const health = async () =>
      ((await (await fetch(`${engine.httpUrl}/health`)).json()) as Record<string, any>)
        .session_store;
    try {
      llm.fallback = () => sseText(['Fine.']);
      const first = await WsClient.connect(engine.wsUrl);
      const { session_id: id, resume_token: token } = first.messages[0]!;
      await first.turn('hi');
      expect(await health()).toEqual({ kind: 'redis', connected: true });

      redis.freeze();
      // A call whose limit Redis keeps across replicas is made within the store's wait.
      llm.enqueue(sseCall('c1', 'fragile'), sseText(['Called.']));
      const called = await first.turn('call it', 10_000);
      expect(called.find((m) => m.type === 'tool_result')).toMatchObject({ ok: true });
      expect(tools.server.requests.map((r) => r.url)).toEqual(['/fragile']);
      first.close();
      await first.closed;
      // A client resuming gets a session of its own at once, rather than waiting on Redis for
      // each command (once one went unanswered, the next fail at once).
      const started = Date.now();
      const again = await WsClient.connect(`${engine.wsUrl}?resume=${encodeURIComponent(token)}`);
      expect(Date.now() - started).toBeLessThan(1900);
      expect(again.messages[0]).toMatchObject({ type: 'session', resumed: false });
      expect(await health()).toEqual({ kind: 'redis', connected: false });

      redis.thaw();
      // Probed every second, Redis is seen answering again.
      for (let i = 0; i < 50 && !(await health()).connected; i++)
        await new Promise((resolve) => setTimeout(resolve, 200));
      await again.turn('hello again');
      const kept = again.messages[0]!.resume_token as string;
      again.close();
      await again.closed;
      const resumed = await WsClient.connect(`${engine.wsUrl}?resume=${encodeURIComponent(kept)}`);
      expect(resumed.messages[0]).toMatchObject({ resumed: true });
      expect(resumed.messages[0]!.session_id).not.toBe(id);
      resumed.close();
    } finally {
      redis.thaw();
      await engine.stop();
    }
  }, 40_000);

  it('closes the store even with commands under way that are never answered', async () => {
    const store = new RedisSessionStore(redis.url, () => undefined, 500);
    await store.connect();
    expect(await store.save({ key: 'k', owner: 'a', data: 'v', ttlSecs: 60 })).toBe(true);
    redis.freeze();
    const saving = store.save({ key: 'k', owner: 'a', data: 'v2', ttlSecs: 60 });
    const outcome = saving.then(
      () => 'saved',
      (error: Error) => error.message,
    );
    await within(store.close(), 5_000, 'the store did not close');
    // The save under way is not taken for done.
    expect(await outcome).not.toBe('saved');
  }, 15_000);
});
