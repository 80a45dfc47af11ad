import { decodeContent, piecesOf } from '../../../test/support/decode.js';
import { CompletionDecoder } from '../completion-decoder.js';

const schemas = new Map([
  [
    'get_current_weather',
    { type: 'object', properties: { location: { type: 'string' }, unit: { type: 'string' } } },
  ],
  ['terminal', { type: 'object', properties: { command: { type: 'string' } } }],
]);
const run = (content: string, size: number) => decodeContent(schemas, piecesOf(content, size));
const weather = ['get_current_weather', { location: '杭州' }];

// Kimi K2 and DeepSeek from a server without their tool parsers (vectors after SGLang's and
// vLLM's Kimi K2 and DeepSeek detector tests).
describe('special-token calls', () => {
  it.each([1, 4, 1000])('reads Kimi K2 and DeepSeek calls, fed %i characters at a time', (size) => {
    const kimi =
      '<|tool_calls_section_begin|><|tool_call_begin|>functions.get_current_weather:0 <|tool_call_argument_begin|>{"location": "杭州"}<|tool_call_end|><|tool_calls_section_end|>';
    expect(run(`Let me look. ${kimi}`, size)).toEqual({ calls: [weather], text: 'Let me look. ' });
    const twoKimi =
      '<|tool_calls_section_begin|><|tool_call_begin|>functions.terminal:0<|tool_call_argument_begin|>{"command":"id"}<|tool_call_end|>' +
      '<|tool_call_begin|>functions.get_current_weather:1<|tool_call_argument_begin|>{"location": "杭州"}<|tool_call_end|><|tool_calls_section_end|>';
    expect(run(twoKimi, size).calls).toEqual([['terminal', { command: 'id' }], weather]);
    const v31 =
      '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>terminal<｜tool▁sep｜>{"command":"id"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>';
    expect(run(v31, size)).toEqual({ calls: [['terminal', { command: 'id' }]], text: '' });
    const v3 =
      '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_current_weather\n```json\n{"location": "杭州"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>';
    expect(run(v3, size)).toEqual({ calls: [weather], text: '' });
  });

  it('keeps the ids Kimi K2 writes, but one an earlier call of the conversation has', () => {
    const twoKimi =
      '<|tool_calls_section_begin|><|tool_call_begin|>functions.terminal:0<|tool_call_argument_begin|>{"command":"id"}<|tool_call_end|>' +
      '<|tool_call_begin|>functions.get_current_weather:1<|tool_call_argument_begin|>{"location": "杭州"}<|tool_call_end|><|tool_calls_section_end|>';
    const ids = (earlierIds: string[]) => {
      const decoder = new CompletionDecoder(schemas, { earlierIds: new Set(earlierIds) });
      return piecesOf(twoKimi, 7)
        .flatMap((content) => decoder.chunk({ choices: [{ index: 0, delta: { content } }] }))
        .concat(decoder.end())
        .flatMap((e) => (e.type === 'tool_call' ? [e.id] : []));
    };
    expect(ids([])).toEqual(['functions.terminal:0', 'functions.get_current_weather:1']);
    const [first, second] = ids(['functions.terminal:0']);
    expect(first).toMatch(/^[A-Za-z0-9]{9}$/);
    expect(second).toBe('functions.get_current_weather:1');
  });

  it("keeps a Hermes block's id, beside its arguments or flat ones (never one of them)", () => {
    const read = (block: string) => {
      const decoder = new CompletionDecoder(schemas);
      const events = [
        ...decoder.chunk({ choices: [{ index: 0, delta: { content: block } }] }),
        ...decoder.end(),
      ];
      return events.flatMap((e) => (e.type === 'tool_call' ? [[e.id, e.arguments]] : []));
    };
    for (const block of [
      '<tool_call>{"name": "terminal", "id": "call-7", "arguments": {"command": "id"}}</tool_call>',
      '<tool_call>{"name": "terminal", "id": "call-7", "command": "id"}</tool_call>',
    ])
      expect(read(block)).toEqual([['call-7', { command: 'id' }]]);
  });

  it('reads Kimi K2 calls whose special tokens were skipped, when they open the reply', () => {
    for (const size of [1, 3, 1000]) {
      expect(run('functions.get_current_weather:0{"location": "杭州"}', size)).toEqual({
        calls: [weather],
        text: '',
      });
      for (const prose of ['functions are handy.', 'fun fact', 'functions.other:0 is no tool'])
        expect(run(prose, size)).toEqual({ calls: [], text: prose });
    }
  });

  it('keeps a call cut off before its end token, and drops stray section tokens', () => {
    expect(
      run('<|tool_call_begin|>functions.terminal:0<|tool_call_argument_begin|>{"command":"ls"', 2)
        .calls,
    ).toEqual([['terminal', { command: 'ls' }]]);
    expect(run('Done.<|tool_calls_section_end|>', 1)).toEqual({ calls: [], text: 'Done.' });
  });

  it("reads a Kimi call id without its prefix or index (quantised models), DeepSeek V3's arguments in an untagged or unclosed fence, and nothing of a call without arguments", () => {
    for (const id of [
      'get_current_weather:0',
      'functions.get_current_weather',
      'get_current_weather',
    ])
      expect(
        run(
          `<|tool_call_begin|>${id}<|tool_call_argument_begin|>{"location": "杭州"}<|tool_call_end|>`,
          3,
        ),
      ).toEqual({ calls: [weather], text: '' });
    for (const fence of ['```\n{"location": "杭州"}\n```', '```json\n{"location": "杭州"}'])
      expect(
        run(
          `<｜tool▁call▁begin｜>function<｜tool▁sep｜>get_current_weather\n${fence}<｜tool▁call▁end｜>`,
          3,
        ),
      ).toEqual({ calls: [weather], text: '' });
    expect(run('Hm.<|tool_call_begin|>functions.terminal:0<|tool_call_end|> Done.', 2)).toEqual({
      calls: [],
      text: 'Hm. Done.',
    });
  });
});
