import { request } from 'node:http';
import { runBuiltEngine, type BuiltEngineRun } from './support/built-engine.js';
import { FakeLlm } from './support/fake-llm.js';
import { WsClient } from './support/ws-client.js';

/** One admin request on a connection of its own (node:cluster hands connections round-robin). */
function admin(url: string, method = 'GET'): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method, agent: false, timeout: 5000, headers: { Authorization: 'Bearer adm-1' } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(body) }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer from ${method} ${url}`)));
    req.on('error', reject);
    req.end();
  });
}

/**
 * ENGINE_PROCESSES=2: /api/sessions answers for the whole engine, whichever process takes the
 * request — every process's sessions listed, each read and closed where it is open.
 */
describe('/api/sessions across the processes of ENGINE_PROCESSES', () => {
  const llm = new FakeLlm();
  let engine: BuiltEngineRun;
  beforeAll(async () => {
    engine = await runBuiltEngine(
      {
        ENGINE_PROCESSES: '2',
        PORT: '0',
        LLM_BASE_URL: await llm.start(),
        LLM_MODEL: 'm',
        ADMIN_API_KEY: 'adm-1',
      },
      true,
      2,
    );
    if (!engine.url) throw new Error(`the engine did not start:\n${engine.output}`);
  }, 60_000);
  afterAll(async () => {
    engine?.stop();
    await engine?.exited;
    await llm.stop();
  });

  it('lists, reads and closes every session, whichever process holds it', async () => {
    const wsUrl = `${engine.url!.replace('http', 'ws')}/ws`;
    const clients = await Promise.all([1, 2, 3, 4].map(() => WsClient.connect(wsUrl)));
    const ids = clients.map(
      (ws) => ws.messages.find((m) => m.type === 'session')!.session_id as string,
    );
    const sessions = `${engine.url!}/api/sessions`;
    // Four requests, on four connections: both processes answer for all four sessions.
    for (let i = 0; i < 4; i++) {
      const listed = await admin(sessions);
      expect(listed.json.count).toBe(4);
      expect(listed.json.sessions.map((s: any) => s.session_id).sort()).toEqual([...ids].sort());
    }
    for (const [i, id] of ids.entries()) {
      expect((await admin(`${sessions}/${id}`)).json).toMatchObject({ ok: true, session_id: id });
      expect((await admin(`${sessions}/${id}`, 'DELETE')).json).toEqual({
        ok: true,
        session_id: id,
        closed: true,
      });
      expect(await clients[i]!.closed).toBe(4002);
    }
    expect((await admin(sessions)).json.count).toBe(0);
    expect((await admin(`${sessions}/${ids[0]}`)).status).toBe(404);
  }, 60_000);
});
