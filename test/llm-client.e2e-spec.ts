import { Logger } from '@nestjs/common';
import { lastValueFrom, toArray } from 'rxjs';
import type { LlmEvent } from '../src/llm/llm.types.js';
import {
  llmClient as client,
  replay,
  sseText,
  TRANSCRIPTS,
  type Script,
} from './support/fake-llm.js';
import { useLlmEvents, weatherRequest as request } from './support/llm-events.js';
import { rng } from './support/qwen-vectors.js';

/** Events with generated call ids blanked, so runs can be compared. */
const stable = (events: LlmEvent[]) =>
  events.map((e) =>
    e.type === 'tool_call' && e.id.startsWith('call_') && e.id.length === 29
      ? { ...e, id: '<generated>' }
      : e,
  );

describe('OpenAiLlmClient against a real SSE server', () => {
  const { llm, url, events } = useLlmEvents(request);

  it.each(TRANSCRIPTS)('%s gives the same events however the bytes are cut', async (file) => {
    const reference = stable(await events(replay(file)));
    const random = rng(file.length * 31);
    for (let i = 0; i < 6; i++) {
      const cuts = Array.from({ length: 1 + Math.floor(random() * 40) }, () =>
        Math.floor(random() * 1e6),
      );
      expect(stable(await events(replay(file, cuts)))).toEqual(reference);
    }
    expect(reference.length).toBeGreaterThan(0);
  });

  it('streams text and ends with done and usage (OpenAI)', async () => {
    const ev = await events(replay('openai-text-stop-usage.txt'));
    const text = ev
      .filter((e) => e.type === 'text')
      .map((e) => (e as { text: string }).text)
      .join('');
    expect(text.length).toBeGreaterThan(10);
    expect(ev.at(-1)).toMatchObject({
      type: 'done',
      finishReason: 'stop',
      usage: { total_tokens: expect.any(Number) },
    });
  });

  it("streams OpenAI's refusal as the answer's text: the user hears why", async () => {
    const ev = await events(replay('openai-refusal.txt'));
    const text = ev.flatMap((e) => (e.type === 'text' ? [e.text] : [])).join('');
    expect(text).toBe("I'm sorry, I can't assist with that request.");
    expect(ev.at(-1)).toMatchObject({ type: 'done', finishReason: 'stop' });
  });

  it('assembles structured calls: single, parallel, and vLLM trailing empty fragments without duplicates', async () => {
    const calls = async (file: string) =>
      (await events(replay(file))).filter((e) => e.type === 'tool_call');
    expect(await calls('openai-tool-call-single.txt')).toHaveLength(1);
    const parallel = await calls('openai-tool-calls-parallel.txt');
    expect(parallel).toHaveLength(2);
    expect(new Set(parallel.map((c) => (c as { id: string }).id)).size).toBe(2);
    const vllm = await calls('vllm-llama31-tool-call-trailing-empty-args.txt');
    expect(vllm).toHaveLength(1);
    expect(vllm[0]).toMatchObject({
      id: expect.stringMatching(/^chatcmpl-tool-/),
      argumentsValid: true,
    });
  });

  it('keeps Qwen3 reasoning out of text and finds the call', async () => {
    const ev = await events(replay('vllm-qwen3-reasoning-content-tool-call-continuous-usage.txt'));
    expect(ev.filter((e) => e.type === 'reasoning').length).toBeGreaterThan(50);
    expect(
      ev
        .filter((e) => e.type === 'text')
        .map((e) => (e as { text: string }).text)
        .join(''),
    ).toBe('\n\n');
    expect(ev.filter((e) => e.type === 'tool_call')).toEqual([
      expect.objectContaining({ name: 'add_todo', argumentsValid: true }),
    ]);
    expect(ev.at(-1)).toMatchObject({ type: 'done', finishReason: 'tool_calls' });
  });

  it('reports an error object inside an HTTP 200 stream (SGLang, xAI)', async () => {
    for (const file of ['sglang-error-in-stream-http200.txt', 'xai-style-error-only-stream.txt']) {
      const ev = await events(replay(file));
      expect(ev).toEqual([
        expect.objectContaining({
          type: 'error',
          message: expect.stringMatching(/token count|API key/),
          retryable: false,
        }),
      ]);
    }
  });

  it('keeps the text of a stream that closes before [DONE], then reports an error', async () => {
    const ev = await events({ kind: 'sse', pieces: sseText(['Hel', 'lo']).pieces.slice(0, 3) });
    expect(ev.map((e) => e.type)).toEqual(['text', 'text', 'error']);
    expect(ev.at(-1)).toMatchObject({
      message: 'LLM stream closed before [DONE]',
      retryable: false,
    });
  });

  it('takes a stream that ends after its finish_reason without [DONE] as finished (as the openai SDK)', async () => {
    const pieces = sseText(['Hel', 'lo']).pieces.slice(0, -1);
    const ev = await events({ kind: 'sse', pieces });
    expect(ev.map((e) => (e.type === 'text' ? e.text : e.type))).toEqual(['Hel', 'lo', 'done']);
    expect(ev.at(-1)).toMatchObject({ finishReason: 'stop' });
    // Its last event without the blank line after it, too.
    const bare = await events({
      kind: 'sse',
      pieces: [...pieces.slice(0, -1), pieces.at(-1)!.trimEnd()],
    });
    expect(bare.map((e) => e.type)).toEqual(['text', 'text', 'done']);
  });

  it('reads the last event of a stream cut off before its blank line, then reports the cut', async () => {
    const [first, second] = sseText(['Hel', 'lo']).pieces.slice(1, 3);
    const ev = await events({ kind: 'sse', pieces: [first!, second!.trimEnd() + '\n'] });
    expect(ev.map((e) => (e.type === 'text' ? e.text : e.type))).toEqual(['Hel', 'lo', 'error']);
    // Cut inside the line: what came whole is kept, and the cut is what is reported.
    const cut = await events({ kind: 'sse', pieces: [first!, second!.slice(0, 40)] });
    expect(cut.map((e) => (e.type === 'text' ? e.text : e.type))).toEqual(['Hel', 'error']);
    expect(cut.at(-1)).toMatchObject({ message: 'LLM stream closed before [DONE]' });
  });

  it('ends a stream at a [DONE] written with spaces around it', async () => {
    const pieces = sseText(['Hi.']).pieces.slice(0, -1);
    const ev = await events({ kind: 'sse', pieces: [...pieces, 'data:  [DONE] \n\n'] });
    expect(ev.map((e) => e.type)).toEqual(['text', 'done']);
  });

  it('reports a line that is not JSON, and HTTP errors with status and the server message', async () => {
    expect((await events({ kind: 'sse', pieces: ['data: {oops\n\n'] })).at(-1)).toMatchObject({
      type: 'error',
      message: expect.stringContaining('not JSON'),
    });
    expect(
      await events({ kind: 'status', status: 503, body: '{"error":{"message":"overloaded"}}' }),
    ).toEqual([
      {
        type: 'error',
        status: 503,
        retryable: true,
        message: 'LLM server answered HTTP 503: overloaded',
      },
    ]);
  });

  it('says what a server sent instead of an event stream, or instead of a completion (a proxy page with HTTP 200)', async () => {
    const page = '<html>\n<body>\n<h1>502 Bad Gateway</h1>\n</body>\n</html>\n';
    expect(await events({ kind: 'sse', pieces: [page], contentType: 'text/html' })).toEqual([
      {
        type: 'error',
        retryable: true,
        message:
          "the LLM server's answer (text/html) held no event: <html> <body> <h1>502 Bad Gateway</h1> </body> </html> (is the server's base URL the API's, ending in /v1?)",
      },
    ]);
    const json = { kind: 'sse' as const, pieces: ['{"detail":"Not Found"}'] };
    expect(await events({ ...json, contentType: 'application/json' })).toEqual([
      {
        type: 'error',
        retryable: false,
        message: `the LLM server's reply holds no choices: {"detail":"Not Found"}`,
      },
    ]);
    expect(await events(json)).toEqual([
      {
        type: 'error',
        retryable: true,
        message: `the LLM server's answer (text/event-stream) held no event: {"detail":"Not Found"}`,
      },
    ]);
  });

  it('says what a server sent instead of a reply asked for whole (chatReply)', async () => {
    const page = '<html><body>Sign in to continue</body></html>';
    llm.enqueue({
      kind: 'status',
      status: 200,
      body: page,
      headers: { 'Content-Type': 'text/html' },
    });
    const ev = await lastValueFrom(client(url()).chatReply(request).pipe(toArray()));
    expect(ev).toEqual([
      {
        type: 'error',
        retryable: true,
        message: `the LLM server's answer (text/html) is not JSON: ${page} (is the server's base URL the API's, ending in /v1?)`,
      },
    ]);
  });

  it('decodes characters whose UTF-8 bytes arrive in two reads, streamed or not', async () => {
    const words = 'Zürich: ☀️ 23 °C, 東京 🌧';
    /** The text's bytes cut every 2 bytes: inside nearly every character above ASCII. */
    const cut = (text: string): Script => {
      const bytes = Buffer.from(text);
      const pieces = Array.from({ length: Math.ceil(bytes.length / 2) }, (_, i) =>
        bytes.subarray(i * 2, i * 2 + 2),
      );
      return {
        kind: 'sse',
        pieces,
        contentType: text.startsWith('{') ? 'application/json' : undefined,
      };
    };
    const streamed = await events(cut(sseText([words]).pieces.join('')));
    expect(streamed.filter((e) => e.type === 'text')).toEqual([{ type: 'text', text: words }]);
    const args = JSON.stringify({ city: 'São Paulo 🌆' });
    llm.enqueue(
      cut(
        JSON.stringify({
          choices: [
            {
              message: {
                content: words,
                tool_calls: [{ id: 'c', function: { name: 'get_weather', arguments: args } }],
              },
              finish_reason: 'tool_calls',
            },
          ],
        }),
      ),
    );
    const reply = await lastValueFrom(client(url()).chatReply(request).pipe(toArray()));
    expect(reply.filter((e) => e.type !== 'done')).toEqual([
      { type: 'text', text: words },
      expect.objectContaining({ name: 'get_weather', arguments: { city: 'São Paulo 🌆' } }),
    ]);
  });

  it('warns once of reasoning shown as the answer: a </think> with no <think> before it', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => {});
    try {
      const stray = () => sseText(['The user greets me.', '</think>\n\nHello!']);
      const c = client(url());
      for (let i = 0; i < 2; i++) {
        const text = (await events(stray(), c)).flatMap((e) => (e.type === 'text' ? [e.text] : []));
        expect(text.join('')).toBe('The user greets me.\n\nHello!');
      }
      await events(sseText(['<think>Easy.</think>Hi!']));
      // Told the reasoning is untagged, a second </think> is no reason to tell it so again.
      const twice = sseText(['The user greets me.</think>Hello!', '</think>']);
      await events(twice, client(url(), { untaggedReasoning: true }));
      expect(warn.mock.calls.map((call) => String(call[0]))).toEqual([
        `the model at ${url()} wrote a </think> with no <think> before it: its reasoning, which the chat template opens in the prompt, reached the user as the answer. Run the server with a reasoning parser, or (for LLM_BASE_URL's model) set LLM_UNTAGGED_REASONING=true`,
      ]);
    } finally {
      warn.mockRestore();
    }
  });
});
