import { Logger } from '@nestjs/common';
import { lastValueFrom, toArray } from 'rxjs';
import type { LlmEvent, LlmRequest } from '../src/llm/llm.types.js';
import {
  useFakeLlm,
  llmClient,
  replay,
  sseText,
  TRANSCRIPTS,
  VLLM_NO_TOOL_PARSER,
  type Script,
} from './support/fake-llm.js';
import { rng } from './support/qwen-vectors.js';

const weatherTool = {
  name: 'get_weather',
  description: 'Weather of a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const request: LlmRequest = {
  messages: [{ role: 'user', content: 'Weather in Paris?' }],
  tools: [weatherTool],
};

const client = llmClient;

/** Events with generated call ids blanked, so runs can be compared. */
const stable = (events: LlmEvent[]) =>
  events.map((e) =>
    e.type === 'tool_call' && e.id.startsWith('call_') && e.id.length === 29
      ? { ...e, id: '<generated>' }
      : e,
  );

describe('OpenAiLlmClient against a real SSE server', () => {
  const { llm, url } = useFakeLlm();

  async function events(script: Script, c = client(url()), req = request): Promise<LlmEvent[]> {
    llm.enqueue(script);
    return lastValueFrom(c.stream(req).pipe(toArray()));
  }

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

  it('sends LLM_EXTRA_HEADERS with every request, over its own headers (a gateway key in Authorization)', async () => {
    const extraHeaders = { 'api-key': 'azure-key', authorization: 'Bearer gateway' };
    await events(sseText(['ok']), client(url(), { model: '', apiKey: 'sk-test', extraHeaders }));
    for (const headers of [llm.modelsHeaders.at(-1), llm.requests[0]!.headers])
      expect(headers).toMatchObject({ 'api-key': 'azure-key', authorization: 'Bearer gateway' });
    // Replaced whatever its case, not sent twice.
    const raw = llm.requests[0]!.rawHeaders.filter((_, i) => i % 2 === 0);
    expect(raw.filter((name) => name.toLowerCase() === 'authorization')).toHaveLength(1);
  });

  it('sends model, messages, the tools array with tool_choice auto, extra body and the API key', async () => {
    await events(
      sseText(['ok']),
      client(url(), { apiKey: 'sk-test', extraBody: { skip_special_tokens: false } }),
    );
    const [req] = llm.requests;
    expect(req!.headers.authorization).toBe('Bearer sk-test');
    expect(req!.body).toEqual({
      model: 'fake-model',
      stream: true,
      messages: request.messages,
      skip_special_tokens: false,
      tool_choice: 'auto',
      tools: [{ type: 'function', function: weatherTool }],
    });
    await events(sseText(['ok']), client(url()), { messages: request.messages, tools: [] });
    expect(llm.requests[1]!.body).not.toHaveProperty('tools');
    expect(llm.requests[1]!.body).not.toHaveProperty('tool_choice');
  });

  it('asks GET /models for the model when LLM_MODEL is empty, once', async () => {
    const c = client(url(), { model: '' });
    const before = llm.modelsRequests.length;
    await events(sseText(['a']), c);
    await events(sseText(['b']), c);
    expect(llm.requests.map((r) => r.body.model)).toEqual(['fake-model', 'fake-model']);
    expect(llm.modelsRequests.length - before).toBe(1);
  });

  it('sends credentials in LLM_BASE_URL as Basic, to GET /models and to completions alike', async () => {
    const c = client(url().replace('://', '://engine:pa%40ss@'), { model: '' });
    await events(sseText(['a']), c);
    const basic = `Basic ${btoa('engine:pa@ss')}`;
    expect(llm.modelsHeaders.at(-1)!.authorization).toBe(basic);
    expect(llm.requests[0]!.headers.authorization).toBe(basic);
  });

  it("keeps LLM_BASE_URL's query after each endpoint's path (a gateway's api-version)", async () => {
    const c = client(`${url()}?api-version=2024-10-21`, { model: '' });
    await events(sseText(['a']), c);
    expect(llm.modelsUrls.at(-1)).toBe('/v1/models?api-version=2024-10-21');
    expect(llm.requests[0]!.url).toBe('/v1/chat/completions?api-version=2024-10-21');
  });

  it('downgrades to tool_choice "none" on vLLM\'s 400 and parses calls from the text, for the life of the client', async () => {
    const c = client(url());
    const xml =
      '<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>';
    llm.enqueue(VLLM_NO_TOOL_PARSER);
    const ev = await events(sseText([xml.slice(0, 20), xml.slice(20)], 'stop'), c);
    expect(ev.filter((e) => e.type === 'tool_call')).toEqual([
      expect.objectContaining({ name: 'get_weather', arguments: { city: 'Paris' } }),
    ]);
    expect(ev.filter((e) => e.type === 'text')).toEqual([]);
    await events(sseText(['ok']), c);
    expect(llm.requests.map((r) => r.body.tool_choice)).toEqual(['auto', 'none', 'none']);
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

  it('reads a non-streamed reply (chatReply) with message.tool_calls', async () => {
    llm.enqueue({
      kind: 'json',
      body: {
        choices: [
          {
            message: {
              role: 'assistant',
              content: null,
              tool_calls: [
                {
                  id: 'call_1',
                  type: 'function',
                  function: { name: 'get_weather', arguments: '{"city": "Paris"}' },
                },
              ],
            },
            finish_reason: 'tool_calls',
          },
        ],
      },
    });
    // LLM_EXTRA_BODY's stream_options would make servers refuse a request that does not stream.
    const c = client(url(), { extraBody: { stream_options: { include_usage: true }, top_k: 20 } });
    const ev = await lastValueFrom(c.chatReply(request).pipe(toArray()));
    expect(ev).toEqual([
      {
        type: 'tool_call',
        id: 'call_1',
        name: 'get_weather',
        arguments: { city: 'Paris' },
        rawArguments: '{"city":"Paris"}',
        argumentsValid: true,
      },
      { type: 'done', finishReason: 'tool_calls' },
    ]);
    expect(llm.requests[0]!.body).toMatchObject({ stream: false, top_k: 20 });
    expect(llm.requests[0]!.body).not.toHaveProperty('stream_options');
  });
});
