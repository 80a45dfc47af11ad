import { Engine } from './support/engine.js';
import { sseText, useFakeLlm } from './support/fake-llm.js';
import { startRedis, type RedisRun } from './support/redis-server.js';
import { WsClient } from './support/ws-client.js';

const KEY = { Authorization: 'Bearer adm-1' };
const api = async (engine: Engine, path: string, init: RequestInit = {}) => {
  const res = await fetch(`${engine.httpUrl}/api/sessions${path}`, { ...init, headers: KEY });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
};
const idOf = (ws: WsClient) => ws.messages.find((m) => m.type === 'session')!.session_id as string;

/**
 * Two replicas sharing a Redis (SESSION_STORE_URL), as behind a Kubernetes Service: whichever
 * one takes an operator's request, /api/sessions lists the sessions open on both, reads one and
 * closes one where it is open.
 */
describe('/api/sessions across replicas sharing a Redis', () => {
  const { llm, url } = useFakeLlm();
  let redis: RedisRun;
  let replicas: Engine[];
  beforeAll(async () => {
    redis = await startRedis();
    const env = { LLM_BASE_URL: url(), LLM_MODEL: 'm', ADMIN_API_KEY: 'adm-1' };
    replicas = [
      await Engine.start({ ...env, SESSION_STORE_URL: redis.url }),
      await Engine.start({ ...env, SESSION_STORE_URL: redis.url }),
    ];
  });
  afterAll(async () => {
    for (const engine of replicas) await engine.stop();
    await redis.stop();
  });

  it('lists, reads and closes the sessions of every replica, whichever answers', async () => {
    const [a, b] = replicas as [Engine, Engine];
    const onA = await WsClient.connect(a.wsUrl);
    const onB = await WsClient.connect(b.wsUrl);
    const ids = [idOf(onA), idOf(onB)].sort();
    for (const engine of [a, b]) {
      const listed = await api(engine, '');
      expect(listed.status).toBe(200);
      expect(listed.json.count).toBe(2);
      expect(listed.json.sessions.map((s: { session_id: string }) => s.session_id).sort()).toEqual(
        ids,
      );
    }
    // B tells the session open on A a note, which A's model reads at once.
    llm.enqueue(sseText(['Your table is booked.']));
    const from = onA.messages.length;
    const noted = await api(b, `/${idOf(onA)}/notes`, {
      method: 'POST',
      body: JSON.stringify({ text: 'Booking 7 confirmed.', respond: true }),
    });
    expect(noted).toEqual({
      status: 200,
      json: { ok: true, session_id: idOf(onA), added: true, respond: true },
    });
    expect(await onA.waitFor((m) => m.type === 'assistant_end', from)).toEqual({
      type: 'assistant_end',
      text: 'Your table is booked.',
    });
    expect(llm.requests.at(-1)!.body.messages.at(-1).content).toMatch(/\nBooking 7 confirmed\.$/);
    // B reads and closes the session open on A.
    const read = await api(b, `/${idOf(onA)}`);
    expect(read).toMatchObject({ status: 200, json: { ok: true, session_id: idOf(onA) } });
    const closed = await api(b, `/${idOf(onA)}`, { method: 'DELETE' });
    expect(closed).toEqual({
      status: 200,
      json: { ok: true, session_id: idOf(onA), closed: true },
    });
    expect(await onA.closed).toBe(4002);
    expect(
      (await api(a, '')).json.sessions.map((s: { session_id: string }) => s.session_id),
    ).toEqual([idOf(onB)]);
    expect((await api(a, `/${idOf(onA)}`)).status).toBe(404);
    onB.close();
  });

  it('answers for its own sessions when Redis is away', async () => {
    const [a] = replicas as [Engine, Engine];
    const ws = await WsClient.connect(a.wsUrl);
    await redis.stop();
    const listed = await api(a, '');
    expect(listed.status).toBe(200);
    expect(listed.json.sessions.map((s: { session_id: string }) => s.session_id)).toEqual([
      idOf(ws),
    ]);
    ws.close();
  });
});
