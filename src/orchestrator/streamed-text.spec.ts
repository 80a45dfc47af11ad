import { StreamedText } from './streamed-text.js';

describe('StreamedText', () => {
  it('reads back every piece in order, at any point, whatever the count', () => {
    const text = new StreamedText();
    let expected = '';
    expect(text.toString()).toBe('');
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
  });
});
