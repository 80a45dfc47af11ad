import fc from 'fast-check';
import { CompletionDecoder } from '../completion-decoder.js';
import { assertSameForAnySplit, decodeContent, piecesOf } from '../../../test/support/decode.js';

const schemas = new Map([
  ['get_weather', { type: 'object', properties: { city: { type: 'string' } } }],
  ['get_time', { type: 'object', properties: {} }],
]);
const run = (content: string, size: number) => decodeContent(schemas, piecesOf(content, size));

const paris = ['get_weather', { city: 'Paris' }];
const rome = ['get_weather', { city: 'Rome' }];

// Mistral's calls from a server without its tool parser: with the control tokens in the text
// (skip_special_tokens false), or skipped from it (vLLM's default).
describe("Mistral's calls written as the reply", () => {
  it.each([1, 2, 5, 1000])('reads every layout, fed %i characters at a time', (size) => {
    for (const [content, calls] of [
      // Tokenizers before v11: a JSON list after [TOOL_CALLS].
      ['[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}}]', [paris]],
      // v11 on: NAME[ARGS]{…}, one [TOOL_CALLS] per call; [CALL_ID] in some versions.
      ['[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}', [paris]],
      [
        '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}[TOOL_CALLS]get_weather[ARGS]{"city": "Rome"}',
        [paris, rome],
      ],
      ['[TOOL_CALLS]get_weather[CALL_ID]a1B2c3D4e[ARGS]{"city": "Paris"}', [paris]],
      ['[TOOL_CALLS]get_time[ARGS]{}', [['get_time', {}]]],
      // The control tokens skipped: NAME{…}, one after another.
      ['get_weather{"city": "Paris"}', [paris]],
      ['get_weather{"city": "Paris"}get_weather{"city": "Rome"}', [paris, rome]],
    ] as const) {
      expect(run(content, size)).toEqual({ calls, text: '' });
    }
  });

  it('takes calls out of the text wherever they start, and leaves brackets in prose alone', () => {
    for (const size of [1, 2, 7, 1000]) {
      expect(run('hi[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}', size)).toEqual({
        calls: [paris],
        text: 'hi',
      });
      expect(
        run(
          'Let me check. [TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}[TOOL_CALLS]get_weather[ARGS]{"city": "Rome"} One moment.',
          size,
        ),
      ).toEqual({ calls: [paris, rome], text: 'Let me check.  One moment.' });
      expect(run('First [TOOL_CALLS] [{"name": "get_time", "arguments": {}}]', size)).toEqual({
        calls: [['get_time', {}]],
        text: 'First ',
      });
      for (const prose of ['Use [brackets] and [TOOL] here [', 'a [TOOL_CALL] b', '[1, 2] and [x]'])
        expect(run(prose, size)).toEqual({ calls: [], text: prose });
    }
  });

  it('keeps a call cut off by the end of the output, and a name alone as a call without arguments', () => {
    for (const size of [1, 4, 1000]) {
      expect(run('[TOOL_CALLS]get_weather[ARGS]{"city": "Par', size)).toEqual({
        calls: [paris.slice(0, 1).concat({ city: 'Par' })],
        text: '',
      });
      expect(run('[TOOL_CALLS]get_time', size)).toEqual({ calls: [['get_time', {}]], text: '' });
    }
  });

  it('sends the text after the calls, and holds prose only while it may still be a call', () => {
    for (const size of [1, 3, 1000]) {
      expect(run('get_weather{"city": "Paris"} Checking now.', size)).toEqual({
        calls: [paris],
        text: ' Checking now.',
      });
      for (const prose of [
        'get_weather is the tool I would use.',
        'getting there',
        'get_weather[ARGS] without arguments',
        'launch{"now": true}',
        '[TOOL] is a placeholder',
        'Sure, here it is.',
      ])
        expect(run(prose, size)).toEqual({ calls: [], text: prose });
      // The token is markup even when no call follows it.
      expect(run('[TOOL_CALLS]I cannot call that.', size)).toEqual({
        calls: [],
        text: 'I cannot call that.',
      });
    }
    // The start of a reply that cannot be a tool's name goes out with its first delta.
    const decoder = new CompletionDecoder(schemas);
    const first = decoder.chunk({ choices: [{ index: 0, delta: { content: 'Sure' } }] });
    expect(first).toEqual([{ type: 'text', text: 'Sure' }]);
  });
});

describe('the ids written with the calls', () => {
  const ids = (content: string, earlierIds: string[] = []) => {
    const decoder = new CompletionDecoder(schemas, { earlierIds: new Set(earlierIds) });
    return piecesOf(content, 3)
      .flatMap((piece) => decoder.chunk({ choices: [{ index: 0, delta: { content: piece } }] }))
      .concat(decoder.end())
      .flatMap((e) => (e.type === 'tool_call' ? [e.id] : []));
  };

  it("keeps Kimi K2's, its special tokens skipped, and Mistral's [CALL_ID], unless already used", () => {
    const kimi = 'functions.get_weather:0{"city": "Paris"}functions.get_time:1{}';
    expect(ids(kimi)).toEqual(['functions.get_weather:0', 'functions.get_time:1']);
    const [first, second] = ids(kimi, ['functions.get_weather:0']);
    expect(first).toMatch(/^[A-Za-z0-9]{9}$/);
    expect(second).toBe('functions.get_time:1');
    expect(ids('[TOOL_CALLS]get_weather[CALL_ID]a1B2c3D4e[ARGS]{"city": "Paris"}')).toEqual([
      'a1B2c3D4e',
    ]);
    const [given] = ids('[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}');
    expect(given).toMatch(/^[A-Za-z0-9]{9}$/);
  });
});

describe('Mistral calls, property', () => {
  it('gives the same calls and text for any split of the content as for one chunk', () => {
    const piece = fc.constantFrom(
      '[TOOL_CALLS]',
      '[ARGS]',
      '[CALL_ID]a1',
      '[',
      ']',
      'get_weather',
      'get_time',
      'get',
      'functions.get_time:0',
      'fun',
      '{"city": "Paris"}',
      '{}',
      '[{"name": "get_time", "arguments": {}}]',
      ' ',
      'Sure.',
      '{',
    );
    const content = fc.array(piece, { maxLength: 12 }).map((a) => a.join(''));
    assertSameForAnySplit({
      text: content,
      read: (deltas) => decodeContent(schemas, deltas),
      numRuns: 500,
      also: (split) => expect(split.text).not.toContain('[TOOL_CALLS]'),
    });
  });
});
