import { CompletionDecoder } from './completion-decoder.js';
import { errorMessageOf } from './stream-fault.js';
import type { LlmEvent } from './llm.types.js';

const schemas = new Map([
  ['get_weather', { type: 'object', properties: { city: { type: 'string' } } }],
]);
const reply = (body: unknown) => new CompletionDecoder(schemas).reply(body);
const strip = (events: LlmEvent[]) =>
  events.map((e) =>
    e.type === 'tool_call'
      ? { type: e.type, name: e.name, arguments: e.arguments, valid: e.argumentsValid }
      : e,
  );

// A non-streamed reply (the seed's fallback asks for one) in the shapes servers give it.
describe('CompletionDecoder.reply', () => {
  it("reads OpenAI's refusal as the answer's text", () => {
    const events = reply({
      choices: [
        {
          message: { role: 'assistant', content: null, refusal: "I can't help with that." },
          finish_reason: 'stop',
        },
      ],
    });
    expect(events).toEqual([
      { type: 'text', text: "I can't help with that." },
      { type: 'done', finishReason: 'stop' },
    ]);
  });

  it('reads calls whose arguments are an object rather than a JSON string (as some servers send them)', () => {
    const events = reply({
      choices: [
        {
          message: {
            content: null,
            tool_calls: [
              { id: 'a', function: { name: 'get_weather', arguments: { city: 'Paris' } } },
              { id: 'b', function: { name: 'get_weather' } },
              { id: 'c', function: { arguments: '{}' } },
            ],
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    });
    expect(strip(events)).toEqual([
      { type: 'tool_call', name: 'get_weather', arguments: { city: 'Paris' }, valid: true },
      { type: 'tool_call', name: 'get_weather', arguments: {}, valid: true },
      {
        type: 'done',
        finishReason: 'tool_calls',
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      },
    ]);
  });

  it('reports a reply without choices, quoting it, rather than ending with nothing said', () => {
    expect(reply({ choices: [] })).toEqual([
      {
        type: 'error',
        message: `the LLM server's reply holds no choices: {"choices":[]}`,
        retryable: false,
      },
    ]);
    // A gateway's answer with HTTP 200 that is no completion at all.
    expect(reply({ detail: 'Not Found' })).toEqual([
      {
        type: 'error',
        message: `the LLM server's reply holds no choices: {"detail":"Not Found"}`,
        retryable: false,
      },
    ]);
  });

  it.each([
    [{ error: { message: 'model overloaded', code: 503 } }, 'model overloaded'],
    [{ error: 'bad things' }, 'bad things'],
    [{ error: { code: 'E42', type: 'server_error' } }, '{"code":"E42","type":"server_error"}'],
  ])('turns an error in a 200 reply into an error event: %j', (body, message) => {
    expect(reply(body)).toEqual([{ type: 'error', message, retryable: false }]);
    expect(new CompletionDecoder(schemas).chunk(body)).toEqual([
      { type: 'error', message, retryable: false },
    ]);
  });

  it('finds no error where there is none', () => {
    for (const body of [null, 'text', 7, {}, { error: null }, { error: '' }])
      expect(errorMessageOf(body)).toBeUndefined();
  });
});
