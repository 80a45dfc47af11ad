import { readNumber } from './number-words.js';

describe('readNumber', () => {
  it('reads the first number speech-to-text writes in digits', () => {
    expect(readNumber('4')).toBe(4);
    expect(readNumber('a table for 3 please, at 8')).toBe(3);
    expect(readNumber('1,250 euros')).toBe(1250);
    expect(readNumber('2,5 kilos')).toBe(2.5);
    expect(readNumber('about 2.75')).toBe(2.75);
    expect(readNumber('-4 degrees')).toBe(-4);
    expect(readNumber('room B12')).toBeUndefined();
  });

  it('reads English number words', () => {
    expect(readNumber('three')).toBe(3);
    expect(readNumber('Twenty-five, please.')).toBe(25);
    expect(readNumber('two hundred and ten')).toBe(210);
    expect(readNumber('four thousand five hundred people')).toBe(4500);
    expect(readNumber('seven and then eight')).toBe(7);
  });

  it('finds none where there is none', () => {
    expect(readNumber('I do not know')).toBeUndefined();
    expect(readNumber('')).toBeUndefined();
  });
});
