import { lastValueFrom, toArray } from 'rxjs';
import type { ChatMessage, LlmEvent, LlmRequest } from '../src/llm/llm.types.js';
import {
  llmClient,
  sseStructuredCalls,
  sseText,
  useFakeLlm,
  type Script,
} from './support/fake-llm.js';

const request: LlmRequest = {
  messages: [{ role: 'user', content: 'Weather in Paris?' }],
  tools: [
    {
      name: 'get_weather',
      description: 'Weather of a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } } },
    },
  ],
};

/** `request` after the model called get_weather for Paris with call id `id`, and `more`. */
const afterParisCall = (id: string, ...more: ChatMessage[]): LlmRequest => ({
  ...request,
  messages: [
    ...request.messages,
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
      ],
    },
    { role: 'tool', tool_call_id: id, content: 'sunny' },
    ...more,
  ],
});

/** An HTTP 400 answer with `body`, as a server refusing part of a request sends it. */
const badRequest = (body: string): Script => ({ kind: 'status', status: 400, body });
/** The assistant message of a request body. */
const assistant = (body: any) => body.messages.find((m: any) => m.role === 'assistant');
/** Ollama's answer to an assistant message whose content is null. */
const NULL_CONTENT_REFUSAL = badRequest(
  '{"error":{"message":"invalid message content type: <nil>","type":"invalid_request_error"}}',
);

/** Servers that answer a streamed request in another shape than they were asked for. */
describe('OpenAiLlmClient against servers that do not stream as asked', () => {
  const { llm, url } = useFakeLlm();

  async function events(script: Script): Promise<LlmEvent[]> {
    llm.enqueue(script);
    return lastValueFrom(llmClient(url()).stream(request).pipe(toArray()));
  }

  it('reads a whole JSON reply when the server ignores stream: true', async () => {
    const reply = {
      choices: [
        {
          index: 0,
          finish_reason: 'tool_calls',
          message: {
            role: 'assistant',
            content: 'Checking.',
            tool_calls: [
              {
                id: 'call_j',
                type: 'function',
                function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
              },
            ],
          },
        },
      ],
    };
    const got = await events({ kind: 'json', body: reply });
    expect(got).toEqual([
      { type: 'text', text: 'Checking.' },
      expect.objectContaining({ type: 'tool_call', id: 'call_j', arguments: { city: 'Paris' } }),
      { type: 'done', finishReason: 'tool_calls' },
    ]);
    expect(llm.requests[0]!.body.stream).toBe(true);
    // A stream labelled application/json is still read as the stream it is.
    const labelled = await events({
      ...sseText(['Hello', ' there']),
      contentType: 'application/json',
    });
    expect(
      labelled.filter((e) => e.type === 'text').map((e) => (e as { text: string }).text),
    ).toEqual(['Hello', ' there']);
    expect(labelled.at(-1)).toMatchObject({ type: 'done', finishReason: 'stop' });
  });

  it('replaces a call id the conversation already holds (servers that number calls per response)', async () => {
    llm.enqueue(
      sseStructuredCalls([{ id: 'call_0', name: 'get_weather', arguments: { city: 'Rome' } }]),
    );
    const earlier = afterParisCall('call_0', { role: 'user', content: 'And Rome?' });
    const got = await lastValueFrom(llmClient(url()).stream(earlier).pipe(toArray()));
    const call = got.find((e) => e.type === 'tool_call') as { id: string; arguments: unknown };
    expect(call.arguments).toEqual({ city: 'Rome' });
    expect(call.id).toMatch(/^[A-Za-z0-9]{9}$/);
    expect(call.id).not.toBe('call_0');
  });

  it("adapts to Gemini's refusal of a tool without arguments, and remembers it", async () => {
    const noArgs: LlmRequest = {
      ...request,
      tools: [
        ...request.tools,
        {
          name: 'get_random_fact',
          description: 'A fact',
          parameters: { type: 'object', properties: {} },
        },
      ],
    };
    // Like Gemini's endpoint: an object schema with empty properties is refused.
    llm.fallback = (body) =>
      body.tools.some((t: any) => t.function.parameters.properties === undefined)
        ? sseText(['Ok.'])
        : badRequest(
            '[{"error":{"code":400,"message":"* GenerateContentRequest.tools[0].function_declarations[1].parameters.properties: should be non-empty for OBJECT type\n","status":"INVALID_ARGUMENT"}}]',
          );
    const client = llmClient(url());
    for (let i = 0; i < 2; i++) {
      const got = await lastValueFrom(client.stream(noArgs).pipe(toArray()));
      expect(got.filter((e) => e.type === 'error')).toEqual([]);
    }
    expect(llm.requests.map((r) => r.body.tools[1].function.parameters)).toEqual([
      { type: 'object', properties: {} },
      { type: 'object' },
      { type: 'object' },
    ]);
    // Tools with arguments are sent as they are.
    expect(llm.requests[1]!.body.tools[0].function.parameters).toEqual(
      request.tools[0]!.parameters,
    );
  });

  it('adapts to a Mistral chat template that takes only 9-character call ids, and remembers it', async () => {
    const afterCall = afterParisCall('chatcmpl-tool-0f1e2d3c4b5a');
    const ids = (body: any): string[] =>
      body.messages.flatMap((m: any) => [
        ...(m.tool_calls ?? []).map((c: any) => c.id),
        ...(m.tool_call_id ? [m.tool_call_id] : []),
      ]);
    // As vLLM answers when the model's chat template raises.
    llm.fallback = (body) =>
      ids(body).every((id) => /^[A-Za-z0-9]{9}$/.test(id))
        ? sseText(['Sunny in Paris.'])
        : badRequest(
            '{"object":"error","message":"Tool call IDs should be alphanumeric strings with length 9!","type":"BadRequestError","code":400}',
          );
    const client = llmClient(url());
    for (let i = 0; i < 2; i++) {
      const got = await lastValueFrom(client.stream(afterCall).pipe(toArray()));
      expect(got[0]).toEqual({ type: 'text', text: 'Sunny in Paris.' });
    }
    expect(llm.requests).toHaveLength(3);
    const [sent, sentAgain] = [ids(llm.requests[1]!.body), ids(llm.requests[2]!.body)];
    // The call and its result keep their pairing, the same id every time.
    expect(sent).toEqual([sent[0], sent[0]]);
    expect(sent[0]).toMatch(/^[A-Za-z0-9]{9}$/);
    expect(sentAgain).toEqual(sent);
  });

  it("adapts to Ollama's refusal of a null content (an answer that is only calls), after another adaptation too", async () => {
    const afterCall = afterParisCall('chatcmpl-tool-77');
    // Ollama refuses the null content; this one also wants Mistral's call ids.
    llm.fallback = (body) =>
      assistant(body).content === null
        ? NULL_CONTENT_REFUSAL
        : !/^[A-Za-z0-9]{9}$/.test(assistant(body).tool_calls[0].id)
          ? badRequest('{"message":"Tool call IDs should be alphanumeric strings with length 9!"}')
          : sseText(['Sunny.']);
    const client = llmClient(url());
    for (let i = 0; i < 2; i++) {
      const got = await lastValueFrom(client.stream(afterCall).pipe(toArray()));
      expect(got[0]).toEqual({ type: 'text', text: 'Sunny.' });
    }
    expect(llm.requests.map((r) => assistant(r.body).content)).toEqual([null, '', '', '']);
    expect(assistant(llm.requests[3]!.body).tool_calls[0].id).toMatch(/^[A-Za-z0-9]{9}$/);
  });

  it('sends again a request that met a refusal another request, sent meanwhile, has already taught', async () => {
    const afterCall = afterParisCall('aB3dE6gH9');
    llm.fallback = (body) =>
      assistant(body).content === null ? NULL_CONTENT_REFUSAL : sseText(['Sunny.']);
    const client = llmClient(url());
    // Two sessions' rounds at once: both are written before the server's first refusal is read.
    const both = await Promise.all(
      [1, 2].map(() => lastValueFrom(client.stream(afterCall).pipe(toArray()))),
    );
    for (const got of both) expect(got[0]).toEqual({ type: 'text', text: 'Sunny.' });
    expect(llm.requests.map((r) => assistant(r.body).content)).toEqual([null, null, '', '']);
  });

  it('sends a request that must not call tools without them to a server that takes tool_choice "auto" only', async () => {
    // As mlx-openai-server answers (the last round after LLM_TOOL_MAX_ITERATIONS asks "none").
    llm.fallback = (body) =>
      body.tool_choice !== undefined && body.tool_choice !== 'auto'
        ? badRequest(
            `{"error":{"message":"Tool choice must be 'auto' when tools are provided.","type":"bad_request"}}`,
          )
        : sseText(['Done.']);
    const client = llmClient(url());
    const last: LlmRequest = { ...request, toolChoice: 'none' };
    for (const asked of [last, last, request]) {
      const got = await lastValueFrom(client.stream(asked).pipe(toArray()));
      expect(got[0]).toEqual({ type: 'text', text: 'Done.' });
    }
    expect(llm.requests.map((r) => [r.body.tool_choice, r.body.tools?.length])).toEqual([
      ['none', 1],
      [undefined, undefined],
      [undefined, undefined],
      ['auto', 1],
    ]);
  });

  it('closes a turn cut off after its tool results for a Mistral template that wants roles to alternate, and remembers it', async () => {
    // The user spoke again while the weather call ran: its turn has no answer.
    const cutOff = afterParisCall('aB3dE6gH9', { role: 'user', content: 'Never mind.' });
    const roles = (body: any): string[] => body.messages.map((m: any) => m.role);
    llm.fallback = (body) =>
      roles(body).some((role, i) => role === 'user' && roles(body)[i - 1] === 'tool')
        ? badRequest(
            '{"object":"error","message":"After the optional system message, conversation roles must alternate user/assistant/user/assistant/...","type":"BadRequestError","code":400}',
          )
        : sseText(['Alright.']);
    const client = llmClient(url());
    for (let i = 0; i < 2; i++) {
      const got = await lastValueFrom(client.stream(cutOff).pipe(toArray()));
      expect(got[0]).toEqual({ type: 'text', text: 'Alright.' });
    }
    expect(llm.requests).toHaveLength(3);
    expect(llm.requests[2]!.body.messages.slice(-3)).toEqual([
      { role: 'tool', tool_call_id: 'aB3dE6gH9', content: 'sunny' },
      { role: 'assistant', content: '(interrupted)' },
      { role: 'user', content: 'Never mind.' },
    ]);
  });

  it('reports an SSE event typed error, whatever its data, after the text so far', async () => {
    for (const data of ['{"message":"model overloaded"}', 'model overloaded']) {
      const pieces = sseText(['Hel']).pieces.slice(0, 2);
      const got = await events({
        kind: 'sse',
        pieces: [...pieces, `event: error\ndata: ${data}\n\n`],
      });
      expect(got).toEqual([
        { type: 'text', text: 'Hel' },
        expect.objectContaining({ type: 'error', message: 'LLM server error: model overloaded' }),
      ]);
    }
  });
});
