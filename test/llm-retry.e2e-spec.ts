import { lastValueFrom, toArray } from 'rxjs';
import type { LlmEvent, LlmRequest } from '../src/llm/llm.types.js';
import { llmClient, replay, sseText, useFakeLlm, type Script } from './support/fake-llm.js';
import { REFUSED_ORIGIN } from './support/refused.js';

const request: LlmRequest = { messages: [{ role: 'user', content: 'Hi' }], tools: [] };
const overloaded = (headers?: Record<string, string>): Script => ({
  kind: 'status',
  status: 503,
  body: '{"error":{"message":"overloaded"}}',
  headers,
});
const text = (ev: LlmEvent[]) => ev.map((e) => (e.type === 'text' ? e.text : '')).join('');

describe('LLM requests retried on transient faults, never once the answer has begun', () => {
  const { llm, url } = useFakeLlm();
  const retrying = (over = {}) => llmClient(url(), { retries: 2, retryBackoffMs: 20, ...over });
  const run = (c = retrying(), signal?: AbortSignal) =>
    lastValueFrom(c.stream(request, signal).pipe(toArray()));

  it('answers after an overloaded server (HTTP 503, 429) recovers; the user sees one answer', async () => {
    llm.enqueue(
      overloaded(),
      { kind: 'status', status: 429, body: 'slow down' },
      sseText(['Hel', 'lo']),
    );
    const ev = await run();
    expect(ev.map((e) => e.type)).toEqual(['text', 'text', 'done']);
    expect(text(ev)).toBe('Hello');
    expect(llm.requests).toHaveLength(3);
  });

  it('gives up after LLM_RETRIES more attempts, with the last error', async () => {
    llm.fallback = () => overloaded();
    const ev = await run();
    expect(ev).toEqual([
      {
        type: 'error',
        status: 503,
        retryable: true,
        message: 'LLM server answered HTTP 503: overloaded',
      },
    ]);
    expect(llm.requests).toHaveLength(3);
  });

  it('waits as long as the server asks in Retry-After', async () => {
    llm.enqueue(overloaded({ 'Retry-After': '0.4' }), sseText(['ok']));
    const started = performance.now();
    expect(text(await run())).toBe('ok');
    expect(performance.now() - started).toBeGreaterThanOrEqual(390);
  });

  it('does not retry what a new request cannot fix: a refusal, an error in the stream, a timeout', async () => {
    llm.enqueue({ kind: 'status', status: 400, body: '{"error":{"message":"bad request"}}' });
    expect((await run()).at(-1)).toMatchObject({ type: 'error', status: 400, retryable: false });
    llm.enqueue(replay('sglang-error-in-stream-http200.txt'));
    expect((await run()).at(-1)).toMatchObject({ type: 'error' });
    llm.enqueue({ kind: 'hang' });
    const timedOut = await run(retrying({ timeoutSecs: 0.3 }));
    expect(timedOut.at(-1)).toMatchObject({ message: expect.stringContaining('timed out') });
    expect(llm.requests).toHaveLength(3);
  });

  it('retries a stream cut off before any token, never one cut off after a token', async () => {
    const cut = (deltas: string[], keep: number): Script => ({
      kind: 'sse',
      pieces: sseText(deltas).pieces.slice(0, keep),
    });
    llm.enqueue(cut(['lost'], 1), sseText(['whole']));
    expect(text(await run())).toBe('whole');
    expect(llm.requests).toHaveLength(2);

    llm.reset();
    llm.enqueue(cut(['Hel', 'lo'], 2), sseText(['again']));
    const ev = await run();
    expect(ev.map((e) => e.type)).toEqual(['text', 'error']);
    expect(text(ev)).toBe('Hel');
    expect(llm.requests).toHaveLength(1);
  });

  it('retries a connection the server drops without answering', async () => {
    llm.enqueue({ kind: 'drop' }, { kind: 'drop' }, sseText(['up']));
    expect(text(await run())).toBe('up');
    expect(llm.requests.length).toBeGreaterThanOrEqual(3);
  });

  it('retries a refused connection (backing off, with jitter), then reports it', async () => {
    const c = llmClient(`${REFUSED_ORIGIN}/v1`, {
      retries: 2,
      retryBackoffMs: 200,
    });
    const started = performance.now();
    const ev = await run(c);
    // Two waits: at least 0.75 × 200 ms, then 0.75 × 400 ms.
    expect(performance.now() - started).toBeGreaterThanOrEqual(450);
    // The client is not told where the server is.
    expect(ev).toEqual([
      expect.objectContaining({
        type: 'error',
        message: 'LLM request failed: no connection to the LLM server (ECONNREFUSED)',
      }),
    ]);
  });

  it('stops waiting to retry as soon as the turn is cancelled', async () => {
    llm.enqueue(overloaded({ 'Retry-After': '30' }));
    const cancel = new AbortController();
    const events = run(retrying({ timeoutSecs: 60 }), cancel.signal);
    while (llm.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    cancel.abort();
    expect(await events).toEqual([
      expect.objectContaining({ type: 'error', message: 'cancelled' }),
    ]);
    expect(llm.requests).toHaveLength(1);
  });
});
