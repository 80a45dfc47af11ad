import { CompletionDecoder } from '../completion-decoder.js';
import type { LlmEvent } from '../llm.types.js';
import { piecesOf } from '../../../test/support/decode.js';

const tools = new Map([
  ['get_weather', { type: 'object', properties: { city: { type: 'string' } } }],
]);

/** What streamed content decodes to: the reasoning, the text, the calls' names. */
function decode(content: string, size: number, schemas = tools) {
  const decoder = new CompletionDecoder(schemas);
  const events: LlmEvent[] = [];
  for (const piece of piecesOf(content, size))
    events.push(...decoder.chunk({ choices: [{ index: 0, delta: { content: piece } }] }));
  events.push(...decoder.end());
  const joined = (type: 'text' | 'reasoning') =>
    events.flatMap((e) => (e.type === type ? [e.text] : [])).join('');
  const calls = events.flatMap((e) => (e.type === 'tool_call' ? [e.name] : []));
  return { reasoning: joined('reasoning'), text: joined('text'), calls };
}

const thought = 'The user wants the weather; I know it.';
// Reasoning tags of models whose server has no reasoning parser for them.
describe('reasoning under other tags than <think>', () => {
  it.each([
    ['Seed-OSS', '<seed:think>', '</seed:think>'],
    ['Magistral', '[THINK]', '[/THINK]'],
    ['Kimi-VL', '◁think▷', '◁/think▷'],
    ['EXAONE Deep', '<thought>', '</thought>'],
    ['Anthropic-style traces', '<thinking>', '</thinking>'],
    ['GRPO-style traces', '<reasoning>', '</reasoning>'],
    ['Command R7B', '<|START_THINKING|>', '<|END_THINKING|>'],
  ])('keeps %s reasoning out of what is spoken, with tools or none', (_model, open, close) => {
    for (const schemas of [tools, new Map()])
      for (const size of [1, 3, 1000])
        expect(decode(`${open}${thought}${close}It is sunny.`, size, schemas)).toEqual({
          reasoning: thought,
          text: 'It is sunny.',
          calls: [],
        });
  });

  it("drops the tags around the answer (Granite's <response>, <answer>)", () => {
    for (const size of [1, 4, 1000]) {
      expect(decode(`<think>${thought}</think><response>It is sunny.</response>`, size)).toEqual({
        reasoning: thought,
        text: 'It is sunny.',
        calls: [],
      });
      expect(decode(`<reasoning>${thought}</reasoning>\n<answer>Sunny.</answer>`, size).text).toBe(
        '\nSunny.',
      );
    }
  });

  it("reads Cohere's reasoning, then its action or its response", () => {
    const action =
      '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": "Paris"}}]<|END_ACTION|>';
    const think = `<|START_THINKING|>${thought}<|END_THINKING|>`;
    for (const size of [1, 6, 1000]) {
      expect(decode(think + action, size)).toEqual({
        reasoning: thought,
        text: '',
        calls: ['get_weather'],
      });
      expect(decode(`${think}<|START_RESPONSE|>Sunny.<|END_RESPONSE|>`, size)).toEqual({
        reasoning: thought,
        text: 'Sunny.',
        calls: [],
      });
    }
  });

  it('ends the answer where the model writes the tool result itself, after its call', () => {
    const hermes = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>';
    const made = '{"temperature": 20}';
    for (const content of [
      `${hermes}\n<tool_response>\n${made}\n</tool_response>\nIt is 20 degrees.`,
      `${hermes}<|observation|>\n<tool_response>${made}</tool_response>It is 20 degrees.`,
      `[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}[TOOL_RESULTS]${made}[/TOOL_RESULTS]It is 20 degrees.`,
      `\`\`\`tool_code\nget_weather(city="Paris")\n\`\`\`\n\`\`\`tool_output\n${made}\n\`\`\`\nIt is 20 degrees.`,
    ])
      for (const size of [1, 4, 1000]) {
        const { text, calls } = decode(content, size);
        expect(calls).toEqual(['get_weather']);
        expect(text.trim()).toBe('');
      }
    // A call made up after the end is not read either.
    const mistral = '[TOOL_CALLS]get_weather[ARGS]{"city": "Rome"}';
    expect(decode(`${hermes}<tool_response>ok</tool_response>${mistral}`, 3).calls).toEqual([
      'get_weather',
    ]);
  });

  it("leaves a call's arguments as the model wrote them, and reads the markup after it", () => {
    const notes = new Map([
      ['save_note', { type: 'object', properties: { text: { type: 'string' } } }],
    ]);
    const text = '<answer>42</answer> [THINK]later[/THINK] <tool_response>';
    const xml = `<tool_call>\n<function=save_note>\n<parameter=text>\n${text}\n</parameter>\n</function>\n</tool_call>`;
    const hermes = `<tool_call>${JSON.stringify({ name: 'save_note', arguments: { text } })}</tool_call>`;
    for (const call of [xml, hermes])
      for (const size of [1, 7, 1000]) {
        const decoder = new CompletionDecoder(notes);
        const events: LlmEvent[] = [];
        for (const content of piecesOf(`${call}<tool_response>made up</tool_response>Said.`, size))
          events.push(...decoder.chunk({ choices: [{ index: 0, delta: { content } }] }));
        events.push(...decoder.end());
        expect(events.filter((e) => e.type === 'tool_call')).toEqual([
          expect.objectContaining({ name: 'save_note', arguments: { text } }),
        ]);
        expect(events.some((e) => e.type === 'text' && /made up|Said/.test(e.text))).toBe(false);
      }
  });

  it.each([
    ['Gemma', '<start_of_turn>model\n', '<end_of_turn>\n<start_of_turn>user\nThanks!'],
    ['Gemma, going on', '', '\n<start_of_turn>user\nThanks!'],
    ['Phi', '<|assistant|>', '<|end|><|user|>Thanks!<|end|>'],
    [
      'Granite',
      '<|start_of_role|>assistant<|end_of_role|>',
      '<|start_of_role|>user<|end_of_role|>Thanks!',
    ],
  ])(
    "ends %s's answer at another role's turn, and drops its own turn's header",
    (_model, own, next) => {
      for (const schemas of [tools, new Map()])
        for (const size of [1, 5, 1000])
          expect(decode(`${own}It is sunny.${next}`, size, schemas).text.trim()).toBe(
            'It is sunny.',
          );
    },
  );

  it('reads a call after such reasoning, and leaves brackets and other tags as text', () => {
    const call = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>';
    expect(decode(`[THINK]${thought}[/THINK]${call}`, 2)).toEqual({
      reasoning: thought,
      text: '',
      calls: ['get_weather'],
    });
    for (const text of [
      '[laughs] Sure [THI',
      'a <thoughtful> b',
      'x [/think] y',
      'ends [',
      'a `b` ```',
    ])
      for (const size of [1, 1000]) expect(decode(text, size).text).toBe(text);
  });
});
