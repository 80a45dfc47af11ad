import { readNumber, readNumbers } from './number-words.js';

describe('readNumber', () => {
  it('reads the first number speech-to-text writes in digits', () => {
    expect(readNumber('4')).toBe(4);
    expect(readNumber('a table for 3 please, at 8')).toBe(3);
    expect(readNumber('1,250 euros')).toBe(1250);
    expect(readNumber('2,5 kilos')).toBe(2.5);
    expect(readNumber('about 2.75')).toBe(2.75);
    expect(readNumber('-4 degrees')).toBe(-4);
    expect(readNumber('room B12')).toBeUndefined();
    expect(readNumber('1,250.50 dollars')).toBe(1250.5);
  });

  it('reads digits as the session language writes them: a decimal comma, a thousands point', () => {
    expect(readNumber('1.250 euro', 'it')).toBe(1250);
    expect(readNumber('12.500.000', 'es')).toBe(12_500_000);
    expect(readNumber('1.250,50 €', 'de')).toBe(1250.5);
    expect(readNumber('2,5 chili', 'it')).toBe(2.5);
    expect(readNumber('1,25', 'pt-BR')).toBe(1.25);
    expect(readNumber('2.5', 'de')).toBe(2.5);
    expect(readNumber('1 250 euros', 'fr')).toBe(1250);
    expect(readNumber('1\u202F250', 'fr')).toBe(1250);
    // As English writes them, in English and in languages not known here.
    expect(readNumber('1.250', 'en')).toBe(1.25);
    expect(readNumber('1,250', 'ja')).toBe(1250);
  });

  it('reads English number words', () => {
    expect(readNumber('three')).toBe(3);
    expect(readNumber('Twenty-five, please.')).toBe(25);
    expect(readNumber('two hundred and ten')).toBe(210);
    expect(readNumber('four thousand five hundred people')).toBe(4500);
    expect(readNumber('seven and then eight')).toBe(7);
  });

  it('reads number words in the session language, English beside them', () => {
    const said: [string, string, number][] = [
      ['it', 'quattro', 4],
      ['it', 'siamo in ventitré', 23],
      ['it', 'trentuno', 31],
      ['it', 'ventotto persone', 28],
      ['it', 'centoventi', 120],
      ['it', 'trecentocinquanta euro', 350],
      ['it', 'duemilacinquecento', 2500],
      ['it', 'mille e cento', 1100],
      ['it', "quarant'anni", 40],
      ['it', 'un tavolo per sei', 6],
      ['it', 'una', 1],
      ['it', 'twelve', 12],
      ['es', 'treinta y dos', 32],
      ['es', 'veintitrés', 23],
      ['es', 'dieciséis años', 16],
      ['es', 'doscientos cincuenta', 250],
      ['es', 'ciento veinte', 120],
      ['es', 'dos mil trescientos', 2300],
      ['es', 'una mesa para cuatro', 4],
      ['fr', 'vingt et un', 21],
      ['fr', 'soixante-dix-sept', 77],
      ['fr', 'quatre-vingt-dix-neuf', 99],
      ['fr', 'quatre-vingts', 80],
      ['fr', 'dix-sept', 17],
      ['fr', 'deux cents', 200],
      ['fr', 'trois mille deux cent cinq', 3205],
      ['fr', 'une table pour huit', 8],
      ['pt', 'vinte e três', 23],
      ['pt', 'cento e vinte', 120],
      ['pt', 'mil e quinhentos', 1500],
      ['pt', 'duas', 2],
      ['pt', 'dezasseis', 16],
      ['de', 'dreiundzwanzig', 23],
      ['de', 'zweihundertdreiundzwanzig', 223],
      ['de', 'Einundzwanzig Gäste', 21],
      ['de', 'dreitausendvierhundertzwölf', 3412],
      ['de', 'dreißig', 30],
      ['de', 'einhundert', 100],
      ['de', 'ein Tisch für vier', 4],
      ['de-AT', 'zwo', 2],
    ];
    for (const [language, text, number] of said)
      expect([language, text, readNumber(text, language)]).toEqual([language, text, number]);
  });

  it('reads a decimal point and a sign said in words', () => {
    const said: [string, string, number][] = [
      ['en', 'two point five', 2.5],
      ['en', 'about one point two five kilos', 1.25],
      ['en', 'three point twenty five', 3.25],
      ['en', 'minus four degrees', -4],
      ['en', 'minus 4', -4],
      ['it', 'due virgola cinque', 2.5],
      ['it', 'meno dieci', -10],
      ['it', 'più o meno dieci', 10],
      ['es', 'dos coma cinco', 2.5],
      ['es', 'más o menos veinte', 20],
      ['fr', 'moins cinq', -5],
      ['fr', 'plus ou moins cinq', 5],
      ['pt', 'dois vírgula cinco', 2.5],
      ['de', 'zwei Komma fünf', 2.5],
      ['de', 'minus drei', -3],
    ];
    for (const [language, text, number] of said)
      expect([language, text, readNumber(text, language)]).toEqual([language, text, number]);
    // A point with no digits after it ends the number.
    expect(readNumbers('two point, then five')).toEqual([2, 5]);
  });

  it("reads another language's words as no number", () => {
    expect(readNumber('quattro', 'en')).toBeUndefined();
    expect(readNumber('quattro', 'ja')).toBeUndefined();
    expect(readNumber('tree street', 'it')).toBeUndefined();
    expect(readNumber('Zweifel', 'de')).toBeUndefined();
  });

  it('reads each number of a list, "and" joining only what makes one number', () => {
    expect(readNumbers('one and three')).toEqual([1, 3]);
    expect(readNumbers('uno e tre', 'it')).toEqual([1, 3]);
    expect(readNumbers('un et trois', 'fr')).toEqual([1, 3]);
    expect(readNumbers('zwei und drei', 'de')).toEqual([2, 3]);
    expect(readNumbers('2 and twenty one')).toEqual([2, 21]);
    expect(readNumbers('the 1st and 4th', 'en')).toEqual([1, 4]);
  });

  it('finds none where there is none', () => {
    expect(readNumber('I do not know')).toBeUndefined();
    // "One moment" asks for time: no number, the question waits for the next words.
    expect(readNumber('one moment please')).toBeUndefined();
    expect(readNumber('un attimo', 'it')).toBeUndefined();
    expect(readNumber('einen Augenblick, bitte', 'de')).toBeUndefined();
    expect(readNumber('un momento... cuatro', 'es')).toBe(4);
    expect(readNumber('one minute', 'en')).toBe(1);
    expect(readNumber('')).toBeUndefined();
  });
});
