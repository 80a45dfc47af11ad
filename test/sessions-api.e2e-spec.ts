import { Engine } from './support/engine.js';
import { sseText, useFakeLlm } from './support/fake-llm.js';
import { startRedis, type RedisRun } from './support/redis-server.js';
import { WsClient, type Msg } from './support/ws-client.js';
import { oneTextAnswer } from './support/latency.js';

const KEY = { Authorization: 'Bearer adm-1' };
const sessionOf = (ws: WsClient) => ws.messages.find((m) => m.type === 'session')!;
const api = async (engine: Engine, path: string, init: RequestInit = {}) => {
  const res = await fetch(`${engine.httpUrl}/api/sessions${path}`, {
    ...init,
    headers: { ...KEY, ...(init.headers as Record<string, string>) },
  });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
};

describe('/api/sessions without ADMIN_API_KEY', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await Engine.start({ LLM_MODEL: 'm' });
  });
  afterAll(() => engine.stop());

  it("is refused: users' conversations are never open to whoever reaches the port", async () => {
    const ws = await WsClient.connect(engine.wsUrl);
    for (const [path, method] of [
      ['', 'GET'],
      [`/${String(sessionOf(ws).session_id)}`, 'DELETE'],
      [`/${String(sessionOf(ws).session_id)}/notes`, 'POST'],
      [`/${String(sessionOf(ws).session_id)}/agent`, 'POST'],
    ]) {
      const res = await fetch(`${engine.httpUrl}/api/sessions${path}`, { method });
      expect([res.status, ((await res.json()) as { message: string }).message]).toEqual([
        403,
        "set ADMIN_API_KEY to use /api/sessions: it reads and closes users' conversations",
      ]);
    }
    expect(ws.closeCode).toBeUndefined();
    ws.close();
  });
});

/** Sessions, in the process's memory or in Redis, as an operator lists, reads and closes them. */
describe.each([
  ['kept in the process', false],
  ['kept in Redis', true],
])('/api/sessions (sessions %s)', (_label, withRedis) => {
  const { llm, url } = useFakeLlm();
  let engine: Engine;
  let redis: RedisRun | undefined;
  beforeAll(async () => {
    if (withRedis) redis = await startRedis();
    engine = await Engine.start({
      LLM_BASE_URL: url(),
      LLM_MODEL: 'm',
      ADMIN_API_KEY: 'adm-1',
      ...(redis && { SESSION_STORE_URL: redis.url }),
    });
  });
  afterAll(async () => {
    await engine.stop();
    await redis?.stop();
  });

  it("lists the open sessions, reads one without its variables' values, and closes it for good", async () => {
    const ws = await WsClient.connect(engine.wsUrl);
    const opened: Msg = sessionOf(ws);
    ws.send({ type: 'session.update', variables: { user_token: 'tok-very-secret' } });
    await ws.waitFor((m) => m.type === 'session.updated');
    llm.enqueue(sseText(['Hello ', 'Ada.']));
    await ws.turn('My name is Ada.');

    expect((await fetch(`${engine.httpUrl}/api/sessions`)).status).toBe(401);
    const listed = await api(engine, '');
    expect(listed).toEqual({
      status: 200,
      json: {
        ok: true,
        count: 1,
        sessions: [
          {
            session_id: opened.session_id,
            opened_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
            started_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
            busy: false,
            modality: 'text',
            channel: 'websocket',
            language: 'en',
            turns: 1,
            messages: 2,
            // How long its user has waited so far: the one answer's first text, the model's first token.
            latency: oneTextAnswer(),
          },
        ],
      },
    });
    const read = await api(engine, `/${opened.session_id}`);
    expect(read.json).toMatchObject({
      ok: true,
      session_id: opened.session_id,
      settings: { modality: 'text', variables: ['user_token'], client_tools: [] },
      history: [
        { role: 'user', content: 'My name is Ada.' },
        { role: 'assistant', content: 'Hello Ada.' },
      ],
    });
    expect(JSON.stringify(read.json)).not.toContain('tok-very-secret');

    const closed = await api(engine, `/${opened.session_id}`, { method: 'DELETE' });
    expect(closed).toEqual({
      status: 200,
      json: { ok: true, session_id: opened.session_id, closed: true },
    });
    expect(await ws.closed).toBe(4002);
    expect((await api(engine, `/${opened.session_id}`)).status).toBe(404);
    expect((await api(engine, '')).json.count).toBe(0);
    // Its resume token no longer resumes it.
    const again = await WsClient.connect(
      `${engine.wsUrl}?resume=${encodeURIComponent(opened.resume_token as string)}`,
    );
    expect(sessionOf(again)).toMatchObject({ resumed: false });
    expect(sessionOf(again).session_id).not.toBe(opened.session_id);
    again.close();
  }, 30_000);

  it("adds a note to a session's conversation: read with the user's next words, or answered at once", async () => {
    const ws = await WsClient.connect(engine.wsUrl);
    const id = sessionOf(ws).session_id as string;
    const note = (body: unknown) =>
      api(engine, `/${id}/notes`, {
        method: 'POST',
        body: JSON.stringify(body),
        headers: { 'Content-Type': 'application/json' },
      });
    expect(await note({ text: 'The payment of 42 EUR went through.' })).toEqual({
      status: 200,
      json: { ok: true, session_id: id, added: true, respond: false },
    });
    llm.reset();
    llm.enqueue(sseText(['It is paid.']), sseText(['Your taxi is here.']));
    await ws.turn('Did it work?');
    expect(llm.requests[0]!.body.messages.at(-1)).toEqual({
      role: 'user',
      content:
        '[Not said by the user: a note from the application the conversation runs in. Keep it in mind: it asks for no answer of its own.]\nThe payment of 42 EUR went through.\n\nDid it work?',
    });
    const from = ws.messages.length;
    expect((await note({ text: 'The taxi arrived.', respond: true })).status).toBe(200);
    expect(await ws.waitFor((m) => m.type === 'assistant_end', from)).toEqual({
      type: 'assistant_end',
      text: 'Your taxi is here.',
    });
    expect(llm.requests[1]!.body.messages.at(-1).content).toMatch(
      /Act on it now.*\nThe taxi arrived\.$/s,
    );
    for (const [body, message] of [
      [{ text: ' ' }, '"text" must not be empty (more than spaces)'],
      [{ text: 'x', respond: 'yes' }, '"respond" must be true or false'],
      [{ text: 'x', urgent: true }, 'unknown field "urgent": expected text, respond'],
      [['x'], 'expected a note: {"text": "…", "respond": false}'],
    ] as const)
      expect(await note(body)).toEqual({
        status: 400,
        json: { ok: false, statusCode: 400, message },
      });
    // 20 notes waiting for the turn in progress: the next is refused.
    let open!: () => void;
    llm.enqueue({ ...sseText(['Counting.']), gate: new Promise<void>((r) => (open = r)) });
    const counting = ws.messages.length;
    ws.send({ type: 'user_text', text: 'Count.' });
    await ws.waitFor((m) => m.type === 'assistant_delta', counting);
    for (let i = 0; i < 20; i++) expect((await note({ text: `Step ${i}.` })).status).toBe(200);
    expect(await note({ text: 'One more.' })).toEqual({
      status: 409,
      json: {
        ok: false,
        statusCode: 409,
        message: '20 notes already wait for the turn in progress to end; nothing was added',
      },
    });
    open();
    expect(
      await api(engine, '/no-such-session/notes', {
        method: 'POST',
        body: '{"text":"x"}',
      }),
    ).toMatchObject({ status: 404 });
    ws.close();
  });

  it('answers 404 naming a session that is not open here', async () => {
    expect(await api(engine, '/no-such-session', { method: 'DELETE' })).toEqual({
      status: 404,
      json: {
        ok: false,
        statusCode: 404,
        message: 'no session "no-such-session" is open on this engine',
      },
    });
  });
});
