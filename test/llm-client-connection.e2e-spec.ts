import { createServer } from 'node:http';
import { REFUSED_ORIGIN } from './support/refused.js';
import type { AddressInfo } from 'node:net';
import { firstValueFrom, lastValueFrom, toArray, filter, take } from 'rxjs';
import type { LlmEvent, LlmRequest } from '../src/llm/llm.types.js';
import { FakeLlm, useFakeLlm, llmClient as client, sseText } from './support/fake-llm.js';
import { useLlmEvents } from './support/llm-events.js';
import { until } from './support/waiting.js';
import { idleConnections } from '../src/llm/http-post.js';

const request: LlmRequest = { messages: [{ role: 'user', content: 'Hello?' }], tools: [] };

/** The client's connection to the LLM server: timeouts, reuse, and aborts the server sees. */
describe('OpenAiLlmClient connections', () => {
  const { llm, url, events } = useLlmEvents(request);

  it('times out a server that never answers, with an error event', async () => {
    const ev = await events({ kind: 'hang' }, client(url(), { timeoutSecs: 0.3 }));
    expect(ev).toEqual([
      expect.objectContaining({
        type: 'error',
        message: expect.stringContaining('timed out'),
        retryable: true,
      }),
    ]);
  });

  it('times out a stream that stalls between chunks', async () => {
    const ev = await events(
      { kind: 'sse', pieces: sseText(['a']).pieces.slice(0, 2), keepOpen: true },
      client(url(), { timeoutSecs: 0.3 }),
    );
    expect(ev.map((e) => e.type)).toEqual(['text', 'error']);
    expect(ev[1]).toMatchObject({
      message: expect.stringContaining('between chunks'),
      retryable: false,
    });
  });

  it('times out a stream of keep-alive comments only, before and between chunks', async () => {
    const keepAlives = Array<string>(20).fill(': keep-alive\n\n');
    const [first, text] = sseText(['a']).pieces;
    for (const pieces of [keepAlives, [first!, text!, ...keepAlives]]) {
      const ev = await events(
        { kind: 'sse', pieces, delayMs: 100, keepOpen: true },
        client(url(), { timeoutSecs: 0.5 }),
      );
      expect(ev.at(-1)).toMatchObject({
        type: 'error',
        message: expect.stringMatching(
          /timed out \((first|between) chunks?, keep-alive comments only, 0\.5s\)/,
        ),
      });
    }
  });

  it('keeps the connection for the next request, and resends once on a new one when the server dropped it', async () => {
    const text = (ev: LlmEvent[]) => ev.map((e) => (e.type === 'text' ? e.text : '')).join('');
    const c = client(url());
    // The end of the chunked body read, the connection back in the pool.
    const settle = () => until(() => idleConnections(url()) === 1, 'the connection kept');
    expect(text(await events(sseText(['one']), c))).toBe('one');
    await settle();
    expect(text(await events(sseText(['two']), c))).toBe('two');
    expect(llm.requests[1]!.clientPort).toBe(llm.requests[0]!.clientPort);
    await settle();
    llm.enqueue({ kind: 'drop' });
    expect(text(await events(sseText(['three']), c))).toBe('three');
    expect(llm.requests).toHaveLength(4);
    expect(llm.requests[2]!.clientPort).toBe(llm.requests[0]!.clientPort);
    expect(llm.requests[3]!.clientPort).not.toBe(llm.requests[2]!.clientPort);
  });

  it('keeps the connections of many answers streamed at once for the next turns', async () => {
    // Node's global agent would keep 256 of them and open 44 new connections for the second wave.
    // A server of its own: no connection of an earlier test in its pool.
    const own = new FakeLlm();
    const ownUrl = await own.start();
    const c = client(ownUrl);
    const idle = () => idleConnections(ownUrl);
    const wave = async () => {
      own.enqueue(...Array.from({ length: 300 }, () => sseText(['hi'])));
      await Promise.all(Array.from({ length: 300 }, () => lastValueFrom(c.stream(request))));
      // The ends of the chunked bodies read, each connection back in the pool (the test's process
      // may be held up reading 300 of them).
      await until(
        () => idle() >= 300,
        () => `300 connections kept, not ${idle()}`,
      );
    };
    try {
      await wave();
      expect(own.connections).toBe(300);
      await wave();
      expect(own.connections).toBe(300);
      expect(own.requests).toHaveLength(600);
    } finally {
      await own.stop();
    }
  });

  it('aborts the HTTP request when the subscriber unsubscribes', async () => {
    llm.enqueue({
      kind: 'sse',
      pieces: [...sseText(['first']).pieces.slice(0, 2)],
      keepOpen: true,
    });
    const first = await firstValueFrom(
      client(url())
        .stream(request)
        .pipe(
          filter((e) => e.type === 'text'),
          take(1),
        ),
    );
    expect(first).toEqual({ type: 'text', text: 'first' });
    await llm.requests[0]!.aborted;
    expect(llm.requests[0]!.wasAborted).toBe(true);
  });

  it('aborts the HTTP request when the signal passed to stream() aborts', async () => {
    llm.enqueue({
      kind: 'sse',
      pieces: [...sseText(['first']).pieces.slice(0, 2)],
      keepOpen: true,
    });
    const controller = new AbortController();
    const events: LlmEvent[] = [];
    const done = new Promise<void>((resolve) =>
      client(url())
        .stream(request, controller.signal)
        .subscribe({
          next: (e) => {
            events.push(e);
            if (e.type === 'text') controller.abort();
          },
          complete: resolve,
        }),
    );
    await done;
    await llm.requests[0]!.aborted;
    expect(llm.requests[0]!.wasAborted).toBe(true);
    expect(events.map((e) => e.type)).toEqual(['text', 'error']);
  });
});

describe('OpenAiLlmClient against a server that sends without end', () => {
  const { llm, url } = useFakeLlm();
  const huge = 'x'.repeat(17 * 1024 * 1024);

  it('cuts a stream whose event grows past 16 MiB, keeping what came before', async () => {
    llm.enqueue({
      kind: 'sse',
      pieces: [
        ...sseText(['before']).pieces.slice(0, 2),
        `data: {"choices":[{"delta":{"content":"${huge}`,
      ],
      keepOpen: true,
    });
    const ev = await lastValueFrom(client(url()).stream(request).pipe(toArray()));
    expect(ev).toEqual([
      { type: 'text', text: 'before' },
      expect.objectContaining({
        type: 'error',
        message: 'the LLM server sent an event larger than 16 MiB',
        retryable: false,
      }),
    ]);
    await llm.requests[0]!.aborted;
    expect(llm.requests[0]!.wasAborted).toBe(true);
  });

  it('refuses a reply past 16 MiB, and quotes the start of a huge error answer', async () => {
    llm.enqueue({
      kind: 'status',
      status: 200,
      body: huge,
      headers: { 'content-type': 'application/json' },
    });
    const reply = await lastValueFrom(client(url()).stream(request).pipe(toArray()));
    expect(reply).toEqual([
      expect.objectContaining({
        type: 'error',
        message: 'LLM request failed: the LLM server sent a reply larger than 16 MiB',
      }),
    ]);
    llm.enqueue({ kind: 'status', status: 502, body: `Bad gateway ${huge}` });
    const fault = await lastValueFrom(
      client(url(), { retries: 0 }).stream(request).pipe(toArray()),
    );
    expect(fault).toEqual([
      expect.objectContaining({
        type: 'error',
        status: 502,
        message: expect.stringMatching(/^LLM server answered HTTP 502: Bad gateway x{100}/),
      }),
    ]);
    expect((fault[0] as { message: string }).message.length).toBeLessThan(600);
  });
});

/** A server on loopback that takes requests and never answers them. */
async function silentServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer(() => undefined);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

describe('OpenAiLlmClient.check (once at start-up)', () => {
  const { llm, url } = useFakeLlm();
  const signal = new AbortController().signal;

  it('asks nothing with LLM_MODEL set; without it, asks GET /models once, kept for the turns', async () => {
    const before = llm.modelsRequests.length;
    expect(await client(url()).check(signal)).toBeUndefined();
    expect(llm.modelsRequests.length).toBe(before);
    const c = client(url(), { model: '' });
    expect(await c.check(signal)).toBeUndefined();
    expect(llm.modelsRequests.length).toBe(before + 1);
    llm.enqueue(sseText(['ok']));
    await lastValueFrom(c.stream(request).pipe(toArray()));
    expect(llm.requests[0]!.body.model).toBe('fake-model');
    expect(llm.modelsRequests.length).toBe(before + 1);
  });

  it('says a server that cannot be reached cannot, and says nothing once stopped', async () => {
    const closed = `${REFUSED_ORIGIN}/v1`;
    expect(await client(closed, { model: '' }).check(signal)).toBe(
      `the LLM server at ${closed} cannot be reached (ECONNREFUSED): turns fail until it answers`,
    );
    expect(await client(closed, { model: '' }).check(AbortSignal.abort())).toBeUndefined();
  });

  it('asks GET /models again after it failed (a server still starting), and keeps the model it then gives', async () => {
    let asked = 0;
    const starting = createServer((_req, res) => {
      asked++;
      if (asked === 1) return void res.writeHead(503).end('{"error":"loading"}');
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ data: [{ id: 'qwen3-coder' }] }));
    });
    await new Promise<void>((r) => starting.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(starting.address() as AddressInfo).port}/v1`;
    try {
      const c = client(base, { model: '' });
      expect(await c.check(signal)).toBe(
        `the LLM server at ${base} answered HTTP 503 to GET /models, and LLM_MODEL is empty: set LLM_MODEL`,
      );
      expect(await c.check(signal)).toBeUndefined();
      expect(await c.check(signal)).toBeUndefined();
      expect(asked).toBe(2);
    } finally {
      await new Promise((r) => starting.close(r));
    }
  });

  it('says what a GET /models answered with instead of a list (a web UI at the root: LLM_BASE_URL without /v1)', async () => {
    const ui = createServer((_req, res) =>
      res
        .writeHead(200, { 'Content-Type': 'text/html' })
        .end('<!doctype html>\n<title>Chat UI</title>'),
    );
    await new Promise<void>((r) => ui.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(ui.address() as AddressInfo).port}`;
    try {
      const answered =
        'GET /models was answered with text/html, not JSON: <!doctype html> <title>Chat UI</title>';
      expect(await client(base, { model: '' }).check(signal)).toBe(
        `the LLM server at ${base}: ${answered} (is LLM_BASE_URL the API's, ending in /v1?), and LLM_MODEL is empty: set LLM_MODEL`,
      );
      const events = await lastValueFrom(
        client(base, { model: '' }).stream(request).pipe(toArray()),
      );
      expect(events).toEqual([expect.objectContaining({ type: 'error', message: answered })]);
    } finally {
      await new Promise((r) => ui.close(r));
    }
  });

  it('gives up on a GET /models that is not answered within LLM_TIMEOUT_SECS', async () => {
    const silent = await silentServer();
    try {
      expect(await client(silent.url, { model: '', timeoutSecs: 0.3 }).check(signal)).toBe(
        `the LLM server at ${silent.url} cannot be reached (timed out): turns fail until it answers`,
      );
    } finally {
      await silent.close();
    }
  });

  it('lets a turn stop waiting for the model when it is cut short, while another caller asks for it', async () => {
    const silent = await silentServer();
    try {
      const c = client(silent.url, { model: '', timeoutSecs: 30 });
      const stop = new AbortController();
      const checked = c.check(stop.signal);
      const turn = new AbortController();
      const events = lastValueFrom(c.stream(request, turn.signal).pipe(toArray()));
      setTimeout(() => turn.abort(), 50);
      expect((await events).map((e) => e.type)).toEqual(['error']);
      stop.abort();
      expect(await checked).toBeUndefined();
    } finally {
      await silent.close();
    }
  });
});
