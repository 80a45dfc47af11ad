import fc from 'fast-check';
import { randomSplit, rng } from '../../../test/support/qwen-vectors.js';
import { ToolCallTextParser } from './tool-call-text.parser.js';

/** Reasoning, visible text and calls of `deltas` read by a parser that starts in reasoning. */
function run(deltas: string[], apart = false) {
  const parser = new ToolCallTextParser(new Map(), { untaggedReasoning: true });
  if (apart) parser.reasoningApart();
  const events = [...deltas.flatMap((d) => parser.push(d)), ...parser.flush()];
  const out = { reasoning: '', text: '', calls: [] as unknown[] };
  for (const e of events) {
    if (e.type === 'call') out.calls.push([e.call.name, e.call.args]);
    else out[e.type] += e.text;
  }
  return out;
}

const call =
  '<tool_call>\n<function=get_weather>\n<parameter=city>\nSF\n</parameter>\n</function>\n</tool_call>';

describe('text that begins inside untagged reasoning', () => {
  it.each([
    ['reasoning, </think>, answer', 'Think.\n</think>\n\nAnswer.', 'Think.\n', '\n\nAnswer.', []],
    [
      'a call before </think>',
      `Need weather.${call}`,
      'Need weather.',
      '',
      [['get_weather', { city: 'SF' }]],
    ],
    [
      'an opener merely mentioned in the reasoning',
      'I could use a <tool_call> tag. No.</think>Hi.',
      'I could use a <tool_call> tag. No.',
      'Hi.',
      [],
    ],
    ['no </think>: the answer', 'Just an answer.', '', 'Just an answer.', []],
    ['no </think>, a call in it', `Sure. ${call}`, 'Sure. ', '', [['get_weather', { city: 'SF' }]]],
  ])('%s, split any way', (_name, input, reasoning, text, calls) => {
    const whole = run([input]);
    expect(whole).toEqual({ reasoning, text, calls });
    expect(run([...input])).toEqual(whole);
    for (let i = 0; i < 20; i++) expect(run(randomSplit(input, rng(i + 1)))).toEqual(whole);
  });

  it('holds the reasoning back: nothing visible comes before </think>', () => {
    const parser = new ToolCallTextParser(new Map(), { untaggedReasoning: true });
    const early = [...'Thinking a long while about it. '.repeat(20)].flatMap((c) => parser.push(c));
    expect(early).toEqual([]);
    expect(parser.push('</think>Yes.')).toEqual([
      { type: 'reasoning', text: 'Thinking a long while about it. '.repeat(20) },
      { type: 'text', text: 'Yes.' },
    ]);
  });

  it('is plain text once the server sends the reasoning apart', () => {
    expect(run(['Hello ', 'there.'], true)).toEqual({
      reasoning: '',
      text: 'Hello there.',
      calls: [],
    });
  });

  it('gives the same result for any split, and never throws', () => {
    const pieces = fc.constantFrom(
      '</think>',
      '<tool_call>',
      '\n<function=f>\n',
      '</function>',
      'a',
      ' ',
      '<',
      '{"name":"f"}',
    );
    fc.assert(
      fc.property(
        fc.array(pieces, { maxLength: 12 }),
        fc.integer({ min: 1, max: 1000 }),
        (parts, seed) => {
          const input = parts.join('');
          expect(run(randomSplit(input, rng(seed)))).toEqual(run([input]));
        },
      ),
      { numRuns: 500 },
    );
  });
});
