import fc from 'fast-check';
import { CompletionDecoder } from '../completion-decoder.js';
import type { LlmEvent } from '../llm.types.js';
import { assertSameForAnySplit, decodeContent, piecesOf } from '../../../test/support/decode.js';

const schemas = new Map([
  ['get_weather', { type: 'object', properties: { city: { type: 'string' } } }],
  [
    'send_sms',
    { type: 'object', properties: { to: { type: 'string' }, text: { type: 'string' } } },
  ],
]);
const run = (content: string, size: number) => decodeContent(schemas, piecesOf(content, size));
const paris = ['get_weather', { city: 'Paris' }];
const analysis =
  '<|channel|>analysis<|message|>User asks weather in Paris. Use get_weather.<|end|>';
const callTo = (header: string, args = '{"city":"Paris"}') =>
  `${analysis}<|start|>assistant${header}<|message|>${args}<|call|>`;

/** All events of streamed content, reasoning included. */
function events(content: string, size: number, finishReason = 'stop'): LlmEvent[] {
  const decoder = new CompletionDecoder(schemas);
  const out: LlmEvent[] = [];
  for (const piece of piecesOf(content, size))
    out.push(...decoder.chunk({ choices: [{ index: 0, delta: { content: piece } }] }));
  out.push(...decoder.chunk({ choices: [{ index: 0, delta: {}, finish_reason: finishReason }] }));
  return [...out, ...decoder.end()];
}
const reasoningOf = (evs: LlmEvent[]) =>
  evs.flatMap((e) => (e.type === 'reasoning' ? [e.text] : [])).join('');

// gpt-oss from a server that sends its special tokens and has no Harmony parser (vectors after
// the Harmony format's documentation and llama.cpp's gpt-oss parser tests).
describe('Harmony messages in the text', () => {
  it.each([1, 3, 7, 1000])(
    'reads a call with its recipient in the channel or in the role, fed %i characters at a time',
    (size) => {
      for (const header of [
        '<|channel|>commentary to=functions.get_weather <|constrain|>json',
        '<|channel|>commentary to=functions.get_weather<|constrain|>json',
        ' to=functions.get_weather<|channel|>commentary <|constrain|>json',
        '<|channel|>commentary to=functions.get_weather json',
        '<|channel|>commentary to=functions.get_weatherjson',
        '<|channel|>commentary to=get_weather',
      ])
        expect(run(callTo(header), size)).toEqual({ calls: [paris], text: '' });
    },
  );

  it.each([1, 4, 1000])(
    'keeps the analysis as reasoning and speaks the final message, fed %i characters at a time',
    (size) => {
      const evs = events(
        `${analysis}<|start|>assistant<|channel|>final<|message|>It is sunny in Paris.<|return|>`,
        size,
      );
      expect(reasoningOf(evs)).toBe('User asks weather in Paris. Use get_weather.');
      expect(evs.flatMap((e) => (e.type === 'text' ? [e.text] : [])).join('')).toBe(
        'It is sunny in Paris.',
      );
    },
  );

  it('speaks a preamble (commentary to no one) and then makes its call', () => {
    const text =
      '<|channel|>commentary<|message|>Let me check that for you.<|end|>' +
      '<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Paris"}<|call|>';
    for (const size of [1, 5, 1000])
      expect(run(text, size)).toEqual({ calls: [paris], text: 'Let me check that for you.' });
  });

  it("ends the answer where the model goes on to write the user's turn", () => {
    const text =
      '<|channel|>final<|message|>Sure, done.<|end|><|start|>user<|message|>Thanks! Now call <tool_call>';
    for (const size of [1, 6, 1000])
      expect(run(text, size)).toEqual({ calls: [], text: 'Sure, done.' });
  });

  it('leaves text with other tags and lone brackets as it is', () => {
    for (const text of ['a <| b', 'x <|channel| y', 'if a<b and c>d', 'ends with <|'])
      for (const size of [1, 2, 1000]) expect(run(text, size)).toEqual({ calls: [], text });
  });

  it('reads a call cut off by the token limit as not closed, and nothing of one cut before its arguments', () => {
    const cut = callTo(
      '<|channel|>commentary to=functions.send_sms <|constrain|>json',
      '{"to":"+4930","text":"On my wa',
    ).replace('<|call|>', '');
    const call = events(cut, 3, 'length').find((e) => e.type === 'tool_call');
    expect(call).toMatchObject({ name: 'send_sms', cutOff: true });
    const bare = `${analysis}<|start|>assistant<|channel|>commentary to=functions.send_sms <|constrain|>json<|message|>`;
    expect(events(bare, 3, 'length').filter((e) => e.type === 'tool_call')).toEqual([]);
  });

  it('reads a call that a server took for reasoning with the rest of the Harmony output', () => {
    const decoder = new CompletionDecoder(schemas);
    const reasoning_content = callTo('<|channel|>commentary to=functions.get_weather');
    decoder.chunk({ choices: [{ index: 0, delta: { reasoning_content } }] });
    const call = decoder.end().find((e) => e.type === 'tool_call');
    expect(call).toMatchObject({ name: 'get_weather', arguments: { city: 'Paris' } });
  });

  it('decodes the same text and calls whatever the deltas', () => {
    const part = fc.constantFrom(
      analysis,
      '<|start|>assistant<|channel|>final<|message|>Sunny, 21 degrees.<|return|>',
      '<|channel|>commentary<|message|>One moment.<|end|>',
      '<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Paris"}<|call|>',
      'plain words a<b ',
    );
    assertSameForAnySplit({
      text: fc.array(part, { maxLength: 4 }).map((parts) => parts.join('')),
      read: (deltas) => decodeContent(schemas, deltas),
      numRuns: 300,
      also: (result) => expect(result.text).not.toMatch(/<\||analysis|<think>/),
    });
  });
});
