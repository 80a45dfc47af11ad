import { lastValueFrom, toArray } from 'rxjs';
import { llmClient as client, sseText, VLLM_NO_TOOL_PARSER } from './support/fake-llm.js';
import { useLlmEvents, weatherRequest as request, weatherTool } from './support/llm-events.js';

/** What the engine's LLM client sends: headers, body, credentials, and what it asks for first. */
describe('OpenAiLlmClient requests', () => {
  const { llm, url, events } = useLlmEvents(request);

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
