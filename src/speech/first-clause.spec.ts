import { SentenceSegmenter } from './sentence-segmenter.js';

/** The pieces given as `deltas` arrive one by one, each piece with the delta it came with. */
function pieces(segmenter: SentenceSegmenter, deltas: string[]): [string, string[]][] {
  return deltas.map((delta) => [delta, segmenter.push(delta)]);
}

describe('SentenceSegmenter with SPEECH_FIRST_CLAUSE_CHARS', () => {
  it('gives the first sentence from its first clause once long enough, the rest by sentence', () => {
    const s = new SentenceSegmenter(250, 20);
    expect(
      pieces(s, [
        'Sure, ',
        'I can book a table for you, ',
        'let me check ',
        'what is free. ',
        'Eight is fine, ',
        'or nine.',
      ]),
    ).toEqual([
      ['Sure, ', []],
      ['I can book a table for you, ', ['Sure, I can book a table for you,']],
      ['let me check ', []],
      ['what is free. ', ['let me check what is free.']],
      ['Eight is fine, ', []],
      ['or nine.', []],
    ]);
    expect(s.flush()).toEqual(['Eight is fine, or nine.']);
  });

  it('gives a first again after each flush (the answer after calls)', () => {
    const s = new SentenceSegmenter(250, 10);
    expect(s.push('Let me check that; ')).toEqual(['Let me check that;']);
    expect(s.flush()).toEqual([]);
    expect(s.push('The table is yours: eight')).toEqual(['The table is yours:']);
    expect(s.push(' tonight, for two')).toEqual([]);
    expect(s.flush()).toEqual(['eight tonight, for two']);
  });

  it('keeps a sentence whole when its end comes with the clause, and numbers whole', () => {
    const s = new SentenceSegmenter(250, 5);
    expect(s.push('Yes, it costs 1,200 euros. Then')).toEqual(['Yes, it costs 1,200 euros.']);
    const n = new SentenceSegmenter(250, 5);
    expect(n.push('It costs 1,200')).toEqual([]);
    expect(new SentenceSegmenter(250, 0).push('Sure, I can book a table for you, ')).toEqual([]);
  });
});
