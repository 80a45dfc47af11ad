import type { Socket } from 'node:net';
import WebSocket from 'ws';
import { Engine } from './support/engine.js';
import { sseText } from './support/fake-llm.js';
import { useEngineRig } from './support/turn-harness.js';
import { RecordingServer } from './support/recording-server.js';
import { WsClient } from './support/ws-client.js';

describe('WebSocket heartbeat', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await Engine.start({ WS_PING_INTERVAL_SECS: '1' });
  });
  afterAll(() => engine.stop());

  it('keeps a peer that answers pings, and drops one that does not', async () => {
    const alive = await WsClient.connect(engine.wsUrl);
    const dead = await WsClient.connect(engine.wsUrl);
    // A peer that stops reading never sees the pings, so it never answers them.
    (dead.socket as unknown as { _socket: Socket })._socket.pause();
    const droppedAt = Date.now();
    await new Promise((r) => setTimeout(r, 2600));
    (dead.socket as unknown as { _socket: Socket })._socket.resume();
    expect(
      await Promise.race([dead.closed, new Promise((r) => setTimeout(() => r('open'), 2000))]),
    ).not.toBe('open');
    expect(Date.now() - droppedAt).toBeLessThan(6000);
    expect(alive.socket.readyState).toBe(alive.socket.OPEN);
    alive.close();
  });

  it('keeps a peer that sends messages though it does not answer pings, and drops it once it falls silent', async () => {
    const socket = new WebSocket(engine.wsUrl, { autoPong: false });
    const closed = new Promise((resolve) => socket.on('close', resolve));
    await new Promise((resolve) => socket.once('open', resolve));
    for (let i = 0; i < 9; i++) {
      socket.send(JSON.stringify({ type: 'interrupt' }));
      await new Promise((r) => setTimeout(r, 300));
    }
    expect(socket.readyState).toBe(socket.OPEN);
    const silentAt = Date.now();
    await closed;
    expect(Date.now() - silentAt).toBeLessThan(4000);
  });
});

describe('a client that reads slower than it is sent to', () => {
  const rig = useEngineRig(() => ({ LLM_MODEL: 'fake', WS_MAX_BUFFERED_BYTES: '262144' }));
  const socketOf = (c: WsClient) => (c.socket as unknown as { _socket: Socket })._socket;

  it('is cut off past WS_MAX_BUFFERED_BYTES, which ends its turn; the others are served', async () => {
    // 20 MB of answer: more than the kernel's socket buffers hold for a client that stops reading.
    const answer = Array.from({ length: 300 }, (_, i) => `${i} ${'x'.repeat(65_536)} `);
    rig.llm.enqueue(sseText(answer), sseText(['Fine.']));
    const slow = await WsClient.connect(rig.engine.wsUrl);
    slow.send({ type: 'user_text', text: 'go' });
    await slow.waitFor((m) => m.type === 'assistant_delta');
    socketOf(slow).pause();
    await rig.llm.requests[0]!.aborted; // its turn ended: the engine stopped asking for it

    const other = await WsClient.connect(rig.engine.wsUrl);
    expect((await other.turn('hi')).at(-1)).toEqual({ type: 'assistant_end', text: 'Fine.' });
    socketOf(slow).resume();
    expect(await slow.closed).toBe(1006);
    expect(slow.messages.filter((m) => m.type === 'assistant_end')).toHaveLength(0);
    expect(slow.messages.length).toBeLessThan(answer.length);
    other.close();
  }, 30_000);
});

describe('WS_MAX_TURNS_PER_MINUTE', () => {
  const rig = useEngineRig(() => ({ LLM_MODEL: 'fake', WS_MAX_TURNS_PER_MINUTE: '2' }));

  it('refuses a session a turn over the limit with rate_limited, without touching the turn in progress', async () => {
    const ws = await WsClient.connect(rig.engine.wsUrl);
    rig.llm.enqueue(sseText(['One.']), { ...sseText(['Two ', 'goes ', 'on.']), delayMs: 100 });
    await ws.turn('first');
    ws.send({ type: 'user_text', text: 'second' });
    await ws.waitFor((m) => m.type === 'assistant_delta' && m.text === 'Two ');
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'third' });
    expect(await ws.waitFor((m) => m.type === 'error', from)).toEqual({
      type: 'error',
      code: 'rate_limited',
      message:
        'more than 2 turns in a minute (WS_MAX_TURNS_PER_MINUTE): wait a moment; nothing was started',
    });
    expect(await ws.waitFor((m) => m.type === 'assistant_end', from)).toEqual({
      type: 'assistant_end',
      text: 'Two goes on.',
    });
    expect(rig.llm.requests).toHaveLength(2);
    // The limit is per session: another one is served.
    const other = await WsClient.connect(rig.engine.wsUrl);
    rig.llm.enqueue(sseText(['Hi.']));
    expect((await other.turn('hi')).at(-1)).toEqual({ type: 'assistant_end', text: 'Hi.' });
    ws.close();
    other.close();
  });
});

describe('WS_MAX_SESSIONS', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await Engine.start({ WS_MAX_SESSIONS: '2' });
  });
  afterAll(() => engine.stop());

  /** What a new client gets: its session, or the close code and reason it was turned away with. */
  const connect = () =>
    new Promise<string>((resolve, reject) => {
      const socket = new WebSocket(engine.wsUrl);
      socket.once('message', () => (resolve('session'), socket.close()));
      socket.once('close', (code, reason) => resolve(`${code} ${reason.toString()}`));
      socket.once('error', reject);
    });

  it('turns away a session over the limit with 1013, and takes one again once a place is free', async () => {
    const first = await WsClient.connect(engine.wsUrl);
    const second = await WsClient.connect(engine.wsUrl);
    expect(await connect()).toBe('1013 too many sessions, try again later');
    const health = (await (await fetch(`${engine.httpUrl}/health`)).json()) as object;
    expect(health).toMatchObject({ sessions: { open: 2, max: 2 } });
    // The engine runs in this process here: its uptime is this process's.
    const { uptime_secs, event_loop_delay_p99_ms: delay } = health as {
      uptime_secs: number;
      event_loop_delay_p99_ms: number;
    };
    expect(Math.abs(uptime_secs - process.uptime())).toBeLessThanOrEqual(2);
    // Milliseconds, to a tenth (the monitor counts in nanoseconds).
    expect(delay).toBeGreaterThanOrEqual(0);
    expect(delay).toBeLessThan(10_000);
    expect(Math.round(delay * 10)).toBeCloseTo(delay * 10, 6);
    first.close();
    await first.closed;
    // The engine frees the place when it sees the socket close, a moment after the client does:
    // like a real client, try again a few times.
    let answer = await connect();
    for (let i = 0; answer !== 'session' && i < 20; i++) {
      await new Promise((r) => setTimeout(r, 50));
      answer = await connect();
    }
    expect(answer).toBe('session');
    // Closed sessions leave the count: the one left is all /health shows.
    const open = async () =>
      ((await (await fetch(`${engine.httpUrl}/health`)).json()) as any).sessions.open as number;
    for (let i = 0; (await open()) !== 1 && i < 20; i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(await open()).toBe(1);
    second.close();
  });
});

describe('WS_API_KEY', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await Engine.start({ WS_API_KEY: 's3cret-key' });
  });
  afterAll(() => engine.stop());

  /** The HTTP status of a refused upgrade, or 'session' once the session event arrives. */
  const attempt = (url: string, headers: Record<string, string> = {}) =>
    new Promise<number | 'session'>((resolve, reject) => {
      const socket = new WebSocket(url, { headers });
      socket.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      socket.once('message', () => (resolve('session'), socket.close()));
      socket.once('error', reject);
    });

  it('refuses an upgrade without the key with 401; takes it as a Bearer header or a token parameter', async () => {
    expect(await attempt(engine.wsUrl)).toBe(401);
    expect(await attempt(engine.wsUrl, { Authorization: 'Bearer wrong' })).toBe(401);
    expect(await attempt(`${engine.wsUrl}?token=s3cret`)).toBe(401);
    expect(await attempt(engine.wsUrl, { Authorization: 'Bearer s3cret-key' })).toBe('session');
    expect(await attempt(`${engine.wsUrl}?token=s3cret-key`)).toBe('session');
  });

  it('serves /ws/ as /ws (the key checked the same), and answers 404 naming /ws at any other path', async () => {
    expect(await attempt(`${engine.wsUrl}/?token=s3cret-key`)).toBe('session');
    expect(await attempt(`${engine.wsUrl}/`)).toBe(401);
    const elsewhere = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const socket = new WebSocket(engine.wsUrl.replace('/ws', '/socket'));
      socket.once('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      socket.once('error', reject);
    });
    expect(elsewhere).toEqual({
      status: 404,
      body: 'no WebSocket at /socket: it is at /twilio, /ws\n',
    });
    // The engine goes on serving.
    expect(await attempt(engine.wsUrl, { Authorization: 'Bearer s3cret-key' })).toBe('session');
  });
});

describe('a client that floods the engine with messages', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await Engine.start({});
  });
  afterAll(() => engine.stop());

  it('takes turns with the other sessions: their messages are not queued behind its flood', async () => {
    const flooder = await WsClient.connect(engine.wsUrl);
    const other = await WsClient.connect(engine.wsUrl);
    const pongs = () => flooder.messages.filter((m) => m.type === 'pong');
    for (let i = 0; i < 5000; i++) flooder.send({ type: 'ping', id: String(i) });
    other.send({ type: 'ping', id: 'other' });
    await other.waitFor((m) => m.type === 'pong');
    expect(pongs().length).toBeLessThan(1000); // unpaced, all 5000 came first
    // The flood is answered whole, in order.
    await flooder.waitFor((m) => m.type === 'pong' && m.id === '4999', 0, 20_000);
    const ids = pongs().map((m) => Number(m.id));
    expect(ids).toEqual(Array.from({ length: 5000 }, (_, i) => i));
    // Meanwhile the engine stopped reading it while 64 messages waited, and read on later.
    const metrics = await (await fetch(`${engine.httpUrl}/metrics`)).text();
    const paused = /^agent_engine_ws_reads_paused_total (\d+)$/m.exec(metrics);
    expect(Number(paused?.[1])).toBeGreaterThan(0);
    flooder.close();
    other.close();
  }, 30_000);
});

describe('a client that the engine stops reading while its messages wait', () => {
  const stt = new RecordingServer();
  let engine: Engine;
  let answer!: () => void;
  const answered = new Promise<void>((resolve) => (answer = resolve));
  beforeAll(async () => {
    const base = await stt.start();
    // Transcriptions wait: the client's messages after its utterance queue up meanwhile.
    stt.respond((_req, res) => void answered.then(() => res.end('{"text":""}')));
    engine = await Engine.start({ WS_PING_INTERVAL_SECS: '1', STT_BASE_URL: base });
  });
  afterAll(async () => {
    await engine?.stop();
    await stt.stop();
  });

  it('is not dropped as a dead peer by the heartbeat meanwhile (its pongs are not read)', async () => {
    const ws = await WsClient.connect(engine.wsUrl);
    ws.socket.send(Buffer.alloc(3200)); // 0.1 s of audio
    ws.send({ type: 'audio_end' });
    for (let i = 0; i < 100; i++) ws.send({ type: 'ping', id: String(i) });
    await new Promise((r) => setTimeout(r, 3500)); // three ping intervals, not read
    answer();
    await ws.waitFor((m) => m.type === 'pong' && m.id === '99');
    expect(ws.closeCode).toBeUndefined();
    expect(ws.messages.filter((m) => m.type === 'error').map((m) => m.code)).toEqual(['no_speech']);
    ws.close();
  }, 15_000);
});
