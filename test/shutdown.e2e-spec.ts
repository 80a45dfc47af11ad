import WebSocket from 'ws';
import { runBuiltEngine } from './support/built-engine.js';
import { sseText, useFakeLlm } from './support/fake-llm.js';
import { pieces } from './support/turn-harness.js';
import { voiceSession, WsClient } from './support/ws-client.js';

const ANSWER = 'This answer is still being spoken when the engine is told to stop, and it ends.';
const wsUrl = (httpUrl: string) => `${httpUrl.replace('http', 'ws')}/ws`;

/** How long one probe may take before it counts as failed (and is tried again). */
const PROBE_MS = 2000;

/** What a client that connects gets: its session, or the close code it was turned away with. */
function tryConnect(url: string): Promise<number | 'session'> {
  const socket = new WebSocket(url, { handshakeTimeout: PROBE_MS });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => (socket.terminate(), reject(new Error('no answer'))), PROBE_MS);
    socket.once('message', () => (clearTimeout(timer), resolve('session'), socket.close()));
    socket.once('close', (code) => (clearTimeout(timer), resolve(code)));
    socket.once('error', (error) => (clearTimeout(timer), reject(error)));
  });
}

/**
 * `probe`, tried again when it fails or gets no answer: with several engine processes, a
 * connection can be handed to one that has drained and is closing its listener, where it is
 * refused, reset or never answered.
 */
async function retried<T>(probe: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await probe();
    } catch (error) {
      if (attempt === 10) throw error;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

/** Resolves once `test` holds, checking every 20 ms; rejects after 5 s. */
async function until(test: () => boolean): Promise<void> {
  for (let waited = 0; !test(); waited += 20) {
    if (waited > 5000) throw new Error('condition not met within 5 s');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('graceful stop on SIGTERM (rolling deploys)', () => {
  const { llm, url } = useFakeLlm();

  it.each([['1'], ['2']])(
    'lets a turn in progress finish, closes idle sessions at once and refuses new ones, all with 1001, then exits 0 (ENGINE_PROCESSES=%s)',
    async (processes) => {
      const engine = await runBuiltEngine(
        { PORT: '0', LLM_BASE_URL: url(), LLM_MODEL: 'fake', ENGINE_PROCESSES: processes },
        true,
        Number(processes),
      );
      // The answer's end waits for the drain's checks below, however slow the machine.
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      llm.enqueue({ ...sseText(pieces(ANSWER, 3)), delayMs: 30, gate });
      const busy = await WsClient.connect(wsUrl(engine.url!));
      const idle = await WsClient.connect(wsUrl(engine.url!));
      busy.send({ type: 'user_text', text: 'talk' });
      await busy.waitFor((m) => m.type === 'assistant_delta');

      engine.stop();
      expect(await idle.closed).toBe(1001);
      expect(busy.closeCode).toBeUndefined(); // still answering
      // Every engine process has had the signal (the primary passes it on to each).
      await until(() => engine.output.match(/draining \d+ session/g)?.length === Number(processes));
      const health = await retried(() =>
        fetch(`${engine.url}/health`, { signal: AbortSignal.timeout(PROBE_MS) }),
      );
      expect(health.status).toBe(503);
      expect(await health.json()).toMatchObject({ status: 'draining' });
      // A liveness probe must not restart a process that is letting its turns finish.
      const live = await retried(() =>
        fetch(`${engine.url}/health/live`, { signal: AbortSignal.timeout(PROBE_MS) }),
      );
      expect([live.status, await live.json()]).toEqual([200, { status: 'alive' }]);
      expect(await retried(() => tryConnect(wsUrl(engine.url!)))).toBe(1001);
      expect(busy.closeCode).toBeUndefined(); // still answering
      release();

      const end = await busy.waitFor((m) => m.type === 'assistant_end');
      expect(end).toEqual({ type: 'assistant_end', text: ANSWER });
      expect(await busy.closed).toBe(1001);
      expect(await engine.exited).toBe(0);
      expect(idle.messages.filter((m) => m.type === 'error')).toEqual([]);
    },
    60_000,
  );

  it('lets a voice session speak its answer to the end before closing it', async () => {
    const engine = await runBuiltEngine(
      { PORT: '0', LLM_BASE_URL: url(), LLM_MODEL: 'fake', TTS_PROVIDER: 'espeak' },
      true,
    );
    llm.enqueue({ ...sseText(pieces(ANSWER, 3)), delayMs: 30 });
    const voice = await voiceSession(wsUrl(engine.url!));
    voice.send({ type: 'user_text', text: 'talk' });
    await voice.waitFor((m) => m.type === 'assistant_delta');

    engine.stop();
    expect(await voice.closed).toBe(1001);
    const end = voice.messages.findIndex((m) => m.type === 'assistant_end');
    expect(voice.messages[end]).toEqual({ type: 'assistant_end', text: ANSWER });
    expect(voice.messages.at(-1)).toEqual({ type: 'audio_end' });
    expect(voice.messages.filter((m) => m.type === 'audio').length).toBeGreaterThan(3);
    expect(await engine.exited).toBe(0);
    // A start-up, a spoken answer and a drain: 7 s on an idle machine, twice that on a busy one.
  }, 40_000);

  it('cuts a turn short when SHUTDOWN_GRACE_SECS runs out, and takes no new turn while draining', async () => {
    const engine = await runBuiltEngine(
      { PORT: '0', LLM_BASE_URL: url(), LLM_MODEL: 'fake', SHUTDOWN_GRACE_SECS: '1' },
      true,
    );
    llm.fallback = () => ({
      kind: 'sse',
      pieces: sseText(['Still ', 'thinking']).pieces.slice(0, 3),
      keepOpen: true,
    });
    const [slow, eager] = await Promise.all([1, 2].map(() => WsClient.connect(wsUrl(engine.url!))));
    for (const c of [slow!, eager!]) {
      c.send({ type: 'user_text', text: 'go' });
      // The two deltas may come joined in one frame (delta-joiner.ts).
      await c.waitFor((m) => m.type === 'assistant_delta' && m.text.endsWith('thinking'));
    }
    const stoppedAt = performance.now();
    engine.stop();
    await until(() => engine.output.includes('draining 2 session'));
    // A new message during the drain interrupts the turn as always, but starts no other.
    eager!.send({ type: 'user_text', text: 'and now?' });
    expect(await eager!.closed).toBe(1001);
    expect(eager!.messages.slice(-2)).toEqual([
      { type: 'assistant_end', text: 'Still thinking', interrupted: true },
      {
        type: 'error',
        code: 'shutting_down',
        message: 'the server is shutting down: reconnect to continue',
      },
    ]);

    expect(await slow!.closed).toBe(1001);
    expect(performance.now() - stoppedAt).toBeGreaterThanOrEqual(1000);
    expect(slow!.messages.at(-1)).toEqual({
      type: 'assistant_end',
      text: 'Still thinking',
      interrupted: true,
    });
    expect(await engine.exited).toBe(0);
    await Promise.all(llm.requests.map((r) => r.aborted));
  }, 40_000);

  it('does not wait the grace period for a client that never answers the close handshake', async () => {
    const engine = await runBuiltEngine(
      { PORT: '0', LLM_BASE_URL: url(), LLM_MODEL: 'fake', SHUTDOWN_GRACE_SECS: '20' },
      true,
    );
    const mute = await WsClient.connect(wsUrl(engine.url!));
    // A peer that stops reading never sees the close frame, so it never answers it.
    (mute.socket as unknown as { _socket: import('node:net').Socket })._socket.pause();
    const stoppedAt = performance.now();
    engine.stop();
    expect(await engine.exited).toBe(0);
    expect(performance.now() - stoppedAt).toBeLessThan(8000);
    // Paused, it would never read the engine's FIN and stay open until the test worker exits.
    mute.socket.terminate();
  }, 30_000);
});
