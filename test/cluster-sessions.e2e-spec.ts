import { request } from 'node:http';
import { useTwoProcesses } from './support/built-engine.js';
import { FakeLlm, sseText } from './support/fake-llm.js';
import { WsClient } from './support/ws-client.js';
import { writeToolsFile } from './support/tools-file.js';

/** One admin request on a connection of its own (node:cluster hands connections round-robin). */
function admin(
  url: string,
  method = 'GET',
  body?: unknown,
): Promise<{ status: number; json: any }> {
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
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/**
 * ENGINE_PROCESSES=2: /api/sessions answers for the whole engine, whichever process takes the
 * request — every process's sessions listed, each read and closed where it is open.
 */
describe('/api/sessions across the processes of ENGINE_PROCESSES', () => {
  const llm = new FakeLlm();
  const engine = useTwoProcesses(async () => ({
    LLM_BASE_URL: await llm.start(),
    LLM_MODEL: 'm',
    ADMIN_API_KEY: 'adm-1',
    LLM_TOOLS_FILE: writeToolsFile([{ type: 'handoff', name: 'to_billing', agent: 'billing' }]),
  }));
  afterAll(() => llm.stop());

  it('lists, reads and closes every session, whichever process holds it', async () => {
    const { wsUrl } = engine();
    const clients = await Promise.all([1, 2, 3, 4].map(() => WsClient.connect(wsUrl)));
    const ids = clients.map(
      (ws) => ws.messages.find((m) => m.type === 'session')!.session_id as string,
    );
    const sessions = `${engine().url}/api/sessions`;
    // Four requests, on four connections: both processes answer for all four sessions.
    for (let i = 0; i < 4; i++) {
      const listed = await admin(sessions);
      expect(listed.json.count).toBe(4);
      expect(listed.json.sessions.map((s: any) => s.session_id).sort()).toEqual([...ids].sort());
    }
    // A note for each, whichever process takes the request: its own session answers it.
    llm.fallback = (body) =>
      sseText([`Told: ${String(body.messages.at(-1).content).split('\n')[1]}`]);
    for (const [i, id] of ids.entries()) {
      const from = clients[i]!.messages.length;
      expect(
        (await admin(`${sessions}/${id}/notes`, 'POST', { text: `For ${id}.`, respond: true }))
          .json,
      ).toEqual({
        ok: true,
        session_id: id,
        added: true,
        respond: true,
      });
      expect(await clients[i]!.waitFor((m) => m.type === 'assistant_end', from)).toEqual({
        type: 'assistant_end',
        text: `Told: For ${id}.`,
      });
    }
    // Each given to an assistant where it is open: its client is told.
    for (const [i, id] of ids.entries()) {
      const from = clients[i]!.messages.length;
      expect((await admin(`${sessions}/${id}/agent`, 'POST', { agent: 'billing' })).json).toEqual({
        ok: true,
        session_id: id,
        agent: 'billing',
      });
      expect(await clients[i]!.waitFor((m) => m.type === 'session.updated', from)).toMatchObject({
        agent: 'billing',
      });
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

  it('resumes a session on whichever process the reconnection reaches (no Redis: the primary keeps them)', async () => {
    const { wsUrl } = engine();
    llm.fallback = (body) => sseText([`Answer ${body.messages.length}.`]);
    const first = await WsClient.connect(wsUrl);
    const opened = first.messages.find((m) => m.type === 'session')!;
    await first.turn('Hello.');
    first.close();
    await first.closed;
    // Four reconnections: node:cluster hands them to both processes in turn.
    let token = opened.resume_token as string;
    for (let i = 0; i < 4; i++) {
      const ws = await WsClient.connect(`${wsUrl}?resume=${encodeURIComponent(token)}`);
      const session = ws.messages.find((m) => m.type === 'session')!;
      expect(session).toMatchObject({ resumed: true, session_id: opened.session_id });
      await ws.turn(`Again ${i}.`);
      ws.close();
      await ws.closed;
      token = session.resume_token as string;
    }
    // The last request carried the whole conversation, whichever process made each turn.
    const said = llm.requests.at(-1)!.body.messages.filter((m: any) => m.role === 'user');
    expect(said.map((m: any) => m.content)).toEqual([
      'Hello.',
      'Again 0.',
      'Again 1.',
      'Again 2.',
      'Again 3.',
    ]);
  }, 60_000);
});
