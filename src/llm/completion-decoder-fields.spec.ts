import { CompletionDecoder } from './completion-decoder.js';
import type { LlmEvent } from './llm.types.js';

// The chunk fields servers differ on (`reasoning` or `reasoning_content`, `refusal`, an empty
// `tool_calls`, a `finish_reason` followed by more chunks), and the same call seen twice.
const schemas = new Map([
  [
    'get_weather',
    {
      type: 'object',
      properties: {
        city: { type: 'string' },
        unit: { type: 'string' },
        stops: { type: 'array' },
      },
    },
  ],
]);
const delta = (d: Record<string, unknown>, finish: string | null = null) => ({
  choices: [{ index: 0, delta: d, finish_reason: finish }],
});
const decode = (chunks: unknown[], opts: { untaggedReasoning?: boolean } = {}) => {
  const decoder = new CompletionDecoder(schemas, opts);
  return [...chunks.flatMap((c) => decoder.chunk(c)), ...decoder.end()];
};
const of = (events: LlmEvent[], type: 'text' | 'reasoning') =>
  events.flatMap((e) => (e.type === type ? [e.text] : [])).join('');
const calls = (events: LlmEvent[]) =>
  events.flatMap((e) => (e.type === 'tool_call' ? [{ name: e.name, arguments: e.arguments }] : []));
const structured = (args: string) =>
  delta({
    tool_calls: [
      {
        index: 0,
        id: 'call_s',
        type: 'function',
        function: { name: 'get_weather', arguments: args },
      },
    ],
  });

describe('CompletionDecoder: fields servers differ on', () => {
  it('reads `reasoning` (Ollama, newer vLLM) as reasoning, and rescues a call written there', () => {
    const events = decode([
      delta({ reasoning: 'The user wants Paris. ' }),
      delta({ reasoning: '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}' }),
      delta({ reasoning: '</tool_call>' }),
      delta({ content: '' }, 'stop'),
    ]);
    expect(of(events, 'reasoning')).toContain('The user wants Paris.');
    expect(of(events, 'text')).toBe('');
    expect(calls(events)).toEqual([{ name: 'get_weather', arguments: { city: 'Paris' } }]);
  });

  it("reads a non-streamed reply's `message.reasoning` as reasoning, never as text", () => {
    const events = new CompletionDecoder(schemas).reply({
      choices: [
        {
          message: { role: 'assistant', reasoning: 'Short question.', content: 'It is sunny.' },
          finish_reason: 'stop',
        },
      ],
    });
    expect(of(events, 'reasoning')).toBe('Short question.');
    expect(of(events, 'text')).toBe('It is sunny.');
  });

  it("streams OpenAI's `refusal` deltas as the answer's text, and an empty one as nothing", () => {
    const events = decode([
      delta({ role: 'assistant', content: null, refusal: '' }),
      delta({ refusal: "I can't " }),
      delta({ refusal: 'help with that.' }),
      delta({}, 'stop'),
    ]);
    expect(events.filter((e) => e.type === 'text')).toEqual([
      { type: 'text', text: "I can't " },
      { type: 'text', text: 'help with that.' },
    ]);
  });

  it('keeps a lone ">" of the text when a server sends an empty `tool_calls` in every delta', () => {
    const events = decode([
      delta({ content: '3 ', tool_calls: [] }),
      delta({ content: '>', tool_calls: [] }),
      delta({ content: ' 2.', tool_calls: [] }),
      delta({ tool_calls: [] }, 'stop'),
    ]);
    expect(of(events, 'text')).toBe('3 > 2.');
  });

  it('keeps the finish reason when a chunk after it says none', () => {
    const events = decode([
      structured('{"city": "Paris"}'),
      delta({}, 'tool_calls'),
      delta({}, null),
      { choices: [], usage: { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 } },
    ]);
    expect(events.at(-1)).toEqual({
      type: 'done',
      finishReason: 'tool_calls',
      usage: { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 },
    });
  });

  it('does not take an empty `reasoning_content` for reasoning kept apart: untagged thoughts stay hidden', () => {
    const events = decode(
      [
        delta({ reasoning_content: '', content: 'The user asks about Paris.' }),
        delta({ content: '</think>\n\nIt is sunny.' }),
        delta({}, 'stop'),
      ],
      { untaggedReasoning: true },
    );
    expect(of(events, 'text').trim()).toBe('It is sunny.');
    expect(of(events, 'reasoning')).toContain('The user asks about Paris.');
    expect(events.some((e) => e.type === 'reasoning' && e.text === '')).toBe(false);
  });
});

describe('CompletionDecoder: the same call seen structured and as text', () => {
  it('is one call whatever the order of its keys', () => {
    const events = decode([
      structured('{"unit": "celsius", "city": "Paris"}'),
      delta({
        content:
          '<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n' +
          '<parameter=unit>\ncelsius\n</parameter>\n</function>\n</tool_call>',
      }),
      delta({}, 'tool_calls'),
    ]);
    expect(calls(events)).toHaveLength(1);
  });

  it('is one call when objects inside an array have their keys in another order', () => {
    const events = decode([
      structured('{"stops": [{"city": "Paris", "days": 2}]}'),
      delta({
        content:
          '<tool_call>{"name": "get_weather", "arguments": {"stops": [{"days": 2, "city": "Paris"}]}}</tool_call>',
      }),
      delta({}, 'tool_calls'),
    ]);
    expect(calls(events)).toEqual([
      { name: 'get_weather', arguments: { stops: [{ city: 'Paris', days: 2 }] } },
    ]);
  });

  it('is two calls when a value differs only in its type ("1" against 1)', () => {
    const events = decode([
      structured('{"city": "1"}'),
      delta({
        content: '<tool_call>{"name": "get_weather", "arguments": {"city": 1}}</tool_call>',
      }),
      delta({}, 'tool_calls'),
    ]);
    expect(calls(events)).toHaveLength(2);
    expect(calls(events)).toEqual(
      expect.arrayContaining([
        { name: 'get_weather', arguments: { city: '1' } },
        { name: 'get_weather', arguments: { city: 1 } },
      ]),
    );
  });
});

describe('CompletionDecoder: arguments nested too deep to walk', () => {
  // A model stuck repeating "[" until its token limit, closed by the server or a repair.
  const deep = `{"stops": ${'['.repeat(50_000)}${']'.repeat(50_000)}}`;
  const tooDeep = {
    name: 'get_weather',
    arguments: {},
    rawArguments: '(arguments nested more than 100 levels deep)',
    argumentsValid: false,
  };

  it('makes an invalid call of them, whichever way the call is written', () => {
    const sources = [
      [structured(deep)],
      [
        delta({
          tool_calls: [
            { index: 0, id: 'o', function: { name: 'get_weather', arguments: JSON.parse(deep) } },
          ],
        }),
      ],
      [delta({ content: `<tool_call>{"name": "get_weather", "arguments": ${deep}}</tool_call>` })],
      [
        delta({
          content: `<tool_call>\n<function=get_weather>\n<parameter=stops>\n${deep.slice(10, -1)}\n</parameter>\n</function>\n</tool_call>`,
        }),
      ],
    ];
    for (const chunks of sources) {
      const events = decode([...chunks, delta({}, 'tool_calls')]);
      expect(events.filter((e) => e.type === 'tool_call')).toEqual([
        expect.objectContaining(tooDeep),
      ]);
    }
  });

  it('keeps arguments 100 levels deep', () => {
    const args = { stops: JSON.parse('['.repeat(99) + ']'.repeat(99)) as unknown };
    const events = decode([structured(JSON.stringify(args)), delta({}, 'tool_calls')]);
    expect(events.find((e) => e.type === 'tool_call')).toMatchObject({
      arguments: args,
      argumentsValid: true,
    });
  });
});
