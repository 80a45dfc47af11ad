import fc from 'fast-check';
import { StreamedText } from './streamed-text.js';

function appendAll(pieces: string[]): StreamedText {
  const text = new StreamedText();
  for (const piece of pieces) text.append(piece);
  return text;
}

describe('StreamedText', () => {
  it('reads back every piece in order, at any point, whatever the count', () => {
    const text = new StreamedText();
    let expected = '';
    expect(text.toString()).toBe('');
    expect(text.lastChar).toBe('');
    for (let i = 0; i < 100; i++) {
      const piece = `w${i} `;
      text.append(piece);
      expected += piece;
      expect(text.length).toBe(expected.length);
      if (i % 7 === 0) expect(text.toString()).toBe(expected);
    }
    expect(text.toString()).toBe(expected);
    text.append('end');
    expect(text.toString()).toBe(`${expected}end`);
    expect(text.lastChar).toBe('d');
  });

  it('keeps accents, CJK and emoji whole, even when a pair of surrogates is cut between pieces', () => {
    const whole = 'Café 東京 👋🏽 done';
    for (let size = 1; size <= 4; size++) {
      const pieces: string[] = [];
      for (let i = 0; i < whole.length; i += size) pieces.push(whole.slice(i, i + size));
      const text = appendAll(pieces);
      expect(text.toString()).toBe(whole);
      expect(text.length).toBe(whole.length);
    }
    // The two halves of 👋 in separate pieces, at every place in a batch.
    for (let before = 0; before < 20; before++) {
      const pieces = [...Array<string>(before).fill('x'), '\ud83d', '\udc4b', '!'];
      expect(appendAll(pieces).toString()).toBe(`${'x'.repeat(before)}👋!`);
    }
  });

  it('holds a long answer (far past its first buffer) exactly', () => {
    const pieces = Array.from({ length: 5000 }, (_, i) => `é${i}🙂 `);
    expect(appendAll(pieces).toString()).toBe(pieces.join(''));
  });

  it('gives back any text cut any way (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: 'grapheme', maxLength: 12 }), { maxLength: 60 }),
        (pieces) => {
          const whole = pieces.join('');
          // Cut the same text again at other places, surrogate pairs included.
          const cuts = pieces.map((p) => p.length);
          const recut: string[] = [];
          let at = 0;
          for (const n of cuts) {
            const size = Math.max(1, n - 1);
            recut.push(whole.slice(at, at + size));
            at += size;
          }
          recut.push(whole.slice(at));
          expect(appendAll(pieces).toString()).toBe(whole);
          expect(appendAll(recut).toString()).toBe(whole);
        },
      ),
    );
  });
});
