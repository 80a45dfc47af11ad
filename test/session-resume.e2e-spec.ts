import { createHash } from 'node:crypto';
import { Lifecycle } from '../src/lifecycle/lifecycle.service.js';
import { RedisSessionStore } from '../src/sessions/redis-session-store.js';
import { Engine } from './support/engine.js';
import { sseText, useFakeLlm, type FakeLlm } from './support/fake-llm.js';
import { laterPort } from './support/ports.js';
import { startRedis, type RedisRun } from './support/redis-server.js';
import { pieces } from './support/turn-harness.js';
import { WsClient, type Msg } from './support/ws-client.js';

const resume = (engine: Engine, token: string) =>
  WsClient.connect(`${engine.wsUrl}?resume=${encodeURIComponent(token)}`);
const session = (ws: WsClient) => ws.messages.find((m) => m.type === 'session')!;
const user = (content: string) => ({ role: 'user', content });
const assistant = (content: string) => ({ role: 'assistant', content });

/**
 * A client counting on `from` (an answer streaming slowly) reconnects to `to` before `from` saw
 * its old connection die: the old one is closed (4001), and `to` answers the next message with
 * the turn that was cut in its history (user "Count." and what had been sent of the answer).
 */
async function takeOverMidTurn(llm: FakeLlm, from: Engine, to: Engine): Promise<WsClient> {
  const old = await WsClient.connect(from.wsUrl);
  // The answer cannot end before the take-over has cut it, however slow the machine.
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const count = sseText(pieces('One, two, three, four, five, six, seven.', 4));
  llm.enqueue({ ...count, delayMs: 80, gate });
  old.send({ type: 'user_text', text: 'Count.' });
  await old.waitFor((m) => m.type === 'assistant_delta');
  const moved = await resume(to, session(old).resume_token);
  expect(await old.closed).toBe(4001);
  expect(session(moved)).toMatchObject({ session_id: session(old).session_id, resumed: true });
  await llm.requests[0]!.aborted; // the old connection's turn was cancelled
  release();
  const heard = old.messages
    .filter((m: Msg) => m.type === 'assistant_delta')
    .map((m) => m.text as string)
    .join('');
  llm.enqueue(sseText(['Eight.']));
  await moved.turn('Go on.');
  const [counted, said, ...rest] = llm.requests[1]!.body.messages.slice(1) as Msg[];
  expect(counted).toEqual(user('Count.'));
  expect(said).toEqual(assistant(expect.stringContaining(heard.trim())));
  expect(rest).toEqual([user('Go on.')]);
  return moved;
}

async function closeAndWait(ws: WsClient): Promise<void> {
  ws.close();
  await ws.closed;
}

describe('resuming a session after a disconnect (sessions kept in the process)', () => {
  const { llm, url } = useFakeLlm();
  let engine: Engine;
  beforeAll(async () => {
    engine = await Engine.start({ LLM_BASE_URL: url(), LLM_MODEL: 'm' });
  });
  afterAll(() => engine.stop());

  it('a client that reconnects with its resume_token goes on with the same conversation and settings', async () => {
    const a = await WsClient.connect(engine.wsUrl);
    const first = session(a);
    expect(first).toMatchObject({
      resumed: false,
      resume_token: expect.stringMatching(/^[\w-]{32}$/),
    });
    llm.enqueue(sseText(['Hello ', 'Ada.']));
    await a.turn('My name is Ada.');
    a.send({ type: 'session.update', language: 'it' });
    await a.waitFor((m) => m.type === 'session.updated');
    await closeAndWait(a);

    const b = await resume(engine, first.resume_token);
    expect(session(b)).toEqual({
      type: 'session',
      session_id: first.session_id,
      settings: { ...first.settings, language: 'it' },
      resumed: true,
      resume_token: first.resume_token,
      agent: null,
    });
    llm.enqueue(sseText(['You are Ada.']));
    await b.turn('Who am I?');
    expect(llm.requests[1]!.body.messages.slice(1)).toEqual([
      user('My name is Ada.'),
      assistant('Hello Ada.'),
      user('Who am I?'),
    ]);
    b.close();
  });

  it('a client that hung up mid-answer and reconnects gets the session with the part it had been sent', async () => {
    const a = await WsClient.connect(engine.wsUrl);
    const token = session(a).resume_token as string;
    const story = 'Once upon a time there was a very long story that was never finished. '.repeat(
      4,
    );
    llm.enqueue({ ...sseText(pieces(story, 8)), delayMs: 20 });
    a.send({ type: 'user_text', text: 'Tell me a story.' });
    await a.waitFor((m) => m.type === 'assistant_delta');
    await closeAndWait(a);
    const b = await resume(engine, token);
    expect(session(b)).toMatchObject({ resumed: true, session_id: session(a).session_id });
    llm.enqueue(sseText(['Where was I?']));
    await b.turn('Go on.');
    const [, told, heard] = llm.requests.at(-1)!.body.messages as { content: string }[];
    expect(told).toEqual(user('Tell me a story.'));
    expect(heard!.content.length).toBeGreaterThan(0);
    expect(story.startsWith(heard!.content)).toBe(true);
    b.close();
  });

  it('an unknown token starts a new session, with a token of its own', async () => {
    const ws = await resume(engine, 'no-such-token');
    expect(session(ws)).toMatchObject({ resumed: false });
    expect(session(ws).resume_token).not.toBe('no-such-token');
    llm.enqueue(sseText(['Hi.']));
    await ws.turn('hello');
    expect(llm.requests[0]!.body.messages.slice(1)).toEqual([user('hello')]);
    ws.close();
  });

  it('a reconnect while the old connection still looks open takes the session over, with the turn it was in', async () => {
    const bystander = await WsClient.connect(engine.wsUrl);
    (await takeOverMidTurn(llm, engine, engine)).close();
    // Only the connection that held the session was closed.
    llm.enqueue(sseText(['Still here.']));
    expect((await bystander.turn('hello?')).at(-1)).toEqual({
      type: 'assistant_end',
      text: 'Still here.',
    });
    bystander.close();
  });

  it('keeps nothing with SESSION_RESUME_SECS=0 (no token is offered, none is honoured) and takes no instructions with SESSION_INSTRUCTIONS_MAX_CHARS=0', async () => {
    const plain = await Engine.start({
      LLM_BASE_URL: url(),
      LLM_MODEL: 'm',
      SESSION_RESUME_SECS: '0',
      SESSION_INSTRUCTIONS_MAX_CHARS: '0',
    });
    try {
      const ws = await WsClient.connect(`${plain.wsUrl}?resume=anything`);
      expect(session(ws)).toEqual({
        type: 'session',
        session_id: expect.any(String),
        settings: expect.any(Object),
        resumed: false,
        agent: null,
      });
      ws.send({ type: 'session.update', instructions: 'Be a pirate.' });
      expect(await ws.waitFor((m) => m.type === 'error')).toEqual({
        type: 'error',
        code: 'invalid_message',
        message:
          'this engine takes no session instructions (SESSION_INSTRUCTIONS_MAX_CHARS=0); nothing was changed',
      });
      ws.close();
    } finally {
      await plain.stop();
    }
  });
});

describe('with Redis (SESSION_STORE_URL): any engine process or replica resumes a session', () => {
  const { llm, url } = useFakeLlm();
  let redis: RedisRun;
  let a: Engine;
  let b: Engine;
  beforeAll(async () => {
    redis = await startRedis();
    const env = { LLM_BASE_URL: url(), LLM_MODEL: 'm', SESSION_STORE_URL: redis.url };
    a = await Engine.start(env);
    b = await Engine.start(env);
  });
  afterAll(async () => {
    await b.stop();
    await a.stop();
    await redis.stop();
  });

  it('/health shows the Redis store connected', async () => {
    const health = (await (await fetch(`${a.httpUrl}/health`)).json()) as Msg;
    expect(health.session_store).toEqual({ kind: 'redis', connected: true });
  });

  it('the newest connection owns the session: one of another replica still holding it is closed (4001)', async () => {
    const onA = await WsClient.connect(a.wsUrl);
    const token = session(onA).resume_token as string;
    llm.enqueue(sseText(['One.']), sseText(['Two.']), sseText(['Four.']));
    await onA.turn('first');
    // The client reconnects before engine A has seen its old connection die.
    const onB = await resume(b, token);
    expect(session(onB)).toMatchObject({ resumed: true, session_id: session(onA).session_id });
    expect(await onA.closed).toBe(4001);
    await onB.turn('second');
    await closeAndWait(onB);

    const again = await resume(a, token);
    await again.turn('fourth');
    expect(llm.requests[2]!.body.messages.slice(1)).toEqual([
      user('first'),
      assistant('One.'),
      user('second'),
      assistant('Two.'),
      user('fourth'),
    ]);
    again.close();
  });

  it('a reconnect to another replica while the old connection still looks open gets the turn it was in', async () => {
    // Replica A saves the turn it cut before replica B takes the session.
    (await takeOverMidTurn(llm, a, b)).close();
  });

  it('closes a connection whose session another took without a word (its save refused: 4001)', async () => {
    const ws = await WsClient.connect(a.wsUrl);
    const token = session(ws).resume_token as string;
    llm.enqueue(sseText(['One.']), sseText(['Two.']));
    await ws.turn('first');
    // Another connection claims the record, and no process hears of it.
    const store = new RedisSessionStore(redis.url, () => undefined);
    await store.connect();
    const key = createHash('sha256').update(token).digest('hex');
    expect(await store.claim({ key, owner: 'elsewhere', ttlSecs: 60 })).toContain('first');
    await store.close();
    await ws.turn('second'); // answered; its save after the turn is refused
    expect(await ws.closed).toBe(4001);
  });

  it('keeps settings changed mid-connection: another replica resumes with them', async () => {
    const onA = await WsClient.connect(a.wsUrl);
    const token = session(onA).resume_token as string;
    onA.send({ type: 'session.update', language: 'it', instructions: 'The caller is Ada.' });
    await onA.waitFor((m) => m.type === 'session.updated');
    const onB = await resume(b, token); // A's connection, taken over, cannot save: its checkpoint tells
    expect(session(onB).settings).toMatchObject({
      language: 'it',
      instructions: 'The caller is Ada.',
    });
    onB.close();
    onA.close();
  });

  it('records expire after SESSION_RESUME_SECS from their last save or claim', async () => {
    const store = new RedisSessionStore(redis.url, () => undefined);
    await store.connect();
    try {
      // Saved, never claimed: the save's time to live.
      expect(await store.save({ key: 'saved', owner: 'o', data: 'd', ttlSecs: 1 })).toBe(true);
      // Saved for long, then claimed: the claim restarts the time to live.
      expect(await store.save({ key: 'k', owner: 'o', data: 'd', ttlSecs: 600 })).toBe(true);
      expect(await store.claim({ key: 'k', owner: 'p', ttlSecs: 1 })).toBe('d');
      expect(await store.save({ key: 'k', owner: 'o', data: 'old', ttlSecs: 1 })).toBe(false);
      await new Promise((r) => setTimeout(r, 1200));
      expect(await store.claim({ key: 'saved', owner: 'p', ttlSecs: 1 })).toBeUndefined();
      expect(await store.claim({ key: 'k', owner: 'p', ttlSecs: 1 })).toBeUndefined();
    } finally {
      await store.close();
    }
  });

  it('a session closed by a draining engine (1001) is resumed on another with its last turn whole', async () => {
    const ANSWER = 'This answer is still streaming when the engine is told to stop, and it ends.';
    const ws = await WsClient.connect(a.wsUrl);
    llm.enqueue({ ...sseText(pieces(ANSWER, 4)), delayMs: 40 });
    ws.send({ type: 'user_text', text: 'Talk.' });
    await ws.waitFor((m) => m.type === 'assistant_delta');
    const drained = a.app.get(Lifecycle).drain(5000);
    expect(await ws.closed).toBe(1001);
    await drained;
    expect(ws.messages.find((m) => m.type === 'assistant_end')).toEqual({
      type: 'assistant_end',
      text: ANSWER,
    });

    const moved = await resume(b, session(ws).resume_token);
    expect(session(moved)).toMatchObject({ resumed: true, session_id: session(ws).session_id });
    llm.enqueue(sseText(['Yes.']));
    await moved.turn('Did you finish?');
    expect(llm.requests[1]!.body.messages.slice(1)).toEqual([
      user('Talk.'),
      assistant(ANSWER),
      user('Did you finish?'),
    ]);
    moved.close();
  });
});

it('with Redis unreachable, sessions start afresh and turns run as usual; once it is back, sessions are kept again', async () => {
  const { FakeLlm } = await import('./support/fake-llm.js');
  const llm = new FakeLlm();
  const port = await laterPort();
  const engine = await Engine.start({
    LLM_BASE_URL: await llm.start(),
    LLM_MODEL: 'm',
    SESSION_STORE_URL: `redis://127.0.0.1:${port}`,
  });
  let redis: RedisRun | undefined;
  const health = async () => (await (await fetch(`${engine.httpUrl}/health`)).json()) as Msg;
  try {
    expect(await health()).toMatchObject({
      status: 'ok',
      session_store: { kind: 'redis', connected: false },
    });
    const ws = await resume(engine, 'some-token');
    expect(session(ws)).toMatchObject({ resumed: false, resume_token: expect.any(String) });
    llm.enqueue(sseText(['Still here.']));
    expect((await ws.turn('hi')).at(-1)).toEqual({ type: 'assistant_end', text: 'Still here.' });
    ws.close();

    redis = await startRedis(port);
    for (let i = 0; i < 30 && (await health()).session_store.connected !== true; i++)
      await new Promise((r) => setTimeout(r, 100));
    expect((await health()).session_store).toEqual({ kind: 'redis', connected: true });
    const kept = await WsClient.connect(engine.wsUrl);
    llm.enqueue(sseText(['Noted.']));
    await kept.turn('remember this');
    await closeAndWait(kept);
    const back = await resume(engine, session(kept).resume_token);
    expect(session(back)).toMatchObject({ resumed: true, session_id: session(kept).session_id });
    back.close();
  } finally {
    await engine?.stop();
    await llm.stop();
    await redis?.stop();
  }
});
