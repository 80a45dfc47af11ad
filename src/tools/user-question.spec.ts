import { spokenQuestion } from './spoken-question.js';
import { givenAnswer, readAnswer, wantedAnswer, type Wanted } from './user-question.js';

const sizes: Wanted = {
  type: 'choice',
  choices: [
    { title: 'Large', value: 'l' },
    { title: 'Extra large', value: 'xl' },
    { title: 'Small', value: 's' },
  ],
};

describe('readAnswer', () => {
  it('takes a text as said, without the full stop speech-to-text adds', () => {
    expect(readAnswer(' Ada Lovelace. ', { type: 'text' })).toEqual({ value: 'Ada Lovelace' });
    expect(readAnswer('"no"', { type: 'text' })).toEqual({ value: 'no' });
    expect(readAnswer('Al', { type: 'text', minLength: 3 })).toEqual({
      error: 'the answer must have at least 3 characters',
    });
  });

  it('writes an email address said aloud as one', () => {
    const email: Wanted = { type: 'text', format: 'email' };
    expect(readAnswer('Ada at example dot com.', email)).toEqual({ value: 'ada@example.com' });
    expect(readAnswer('ada@example.com', email)).toEqual({ value: 'ada@example.com' });
  });

  it('takes a number within bounds, whole for an integer', () => {
    const guests: Wanted = { type: 'integer', minimum: 1, maximum: 8 };
    expect(readAnswer('we are four', guests)).toEqual({ value: 4 });
    expect(readAnswer('12 of us', guests)).toEqual({ error: '12 is over 8' });
    expect(readAnswer('2.5', guests)).toEqual({ error: '2.5 is not a whole number' });
    expect(readAnswer('not sure', guests)).toEqual({ error: '"not sure" has no number in it' });
  });

  it('picks the choice named, the longest name when one holds another, or by its place', () => {
    expect(readAnswer('the small one please', sizes)).toEqual({ value: 's' });
    expect(readAnswer('Extra large!', sizes)).toEqual({ value: 'xl' });
    expect(readAnswer('large', sizes)).toEqual({ value: 'l' });
    expect(readAnswer('the second one', sizes)).toEqual({ value: 'xl' });
    expect(readAnswer('the last', sizes)).toEqual({ value: 's' });
    expect(readAnswer('3', sizes)).toEqual({ value: 's' });
    // A value of a letter or two is no word to find in what was said.
    const slots: Wanted = {
      type: 'choice',
      choices: [
        { title: 'Morning', value: 'a' },
        { title: 'Evening', value: 'b' },
      ],
    };
    expect(readAnswer('the evening, a bit late', slots)).toEqual({ value: 'b' });
    expect(readAnswer('small or large', sizes)).toEqual({
      error: '"small or large" names more than one of: Large, Small',
    });
    expect(readAnswer('medium', sizes)).toEqual({
      error: '"medium" is none of: Large, Extra large, Small',
    });
  });

  it("reads numbers, places and email addresses in the session's language", () => {
    const guests: Wanted = { type: 'integer', minimum: 1, maximum: 30 };
    expect(readAnswer('siamo in ventitré', guests, undefined, 'it')).toEqual({ value: 23 });
    expect(readAnswer('una mesa para cuatro', guests, undefined, 'es')).toEqual({ value: 4 });
    expect(readAnswer('vingt et un', guests, undefined, 'fr-CH')).toEqual({ value: 21 });
    expect(readAnswer('vierzig', guests, undefined, 'de')).toEqual({ error: '40 is over 30' });
    const pizze: Wanted = {
      type: 'choice',
      choices: [
        { title: 'Piccola', value: 's' },
        { title: 'Media', value: 'm' },
        { title: 'Caffè', value: 'c' },
      ],
    };
    const said: [string, string, string][] = [
      ['it', 'la seconda', 'm'],
      ['it', "l'ultima", 'c'],
      ['it', 'un caffe', 'c'],
      ['it', 'la numero due', 'm'],
      ['es', 'la primera', 's'],
      ['fr', 'la deuxième', 'm'],
      ['fr', 'la dernière', 'c'],
      ['pt', 'a segunda', 'm'],
      ['de', 'die erste', 's'],
      ['de', 'den letzten', 'c'],
      ['it', 'the second', 'm'],
    ];
    for (const [language, text, value] of said)
      expect([language, text, readAnswer(text, pizze, undefined, language)]).toEqual([
        language,
        text,
        { value },
      ]);
    expect(readAnswer('la seconda', pizze, undefined, 'en')).toMatchObject({ error: /none of/ });
    // An article before a word names no place: "una birra" is none of them.
    expect(readAnswer('una birra', pizze, undefined, 'it')).toMatchObject({ error: /none of/ });
    expect(readAnswer('una', pizze, undefined, 'it')).toEqual({ value: 's' });
    const email: Wanted = { type: 'text', format: 'email' };
    expect(readAnswer('ada chiocciola example punto it', email, undefined, 'it')).toEqual({
      value: 'ada@example.it',
    });
    expect(readAnswer('Ada arroba example punto es.', email, undefined, 'es')).toEqual({
      value: 'ada@example.es',
    });
    expect(readAnswer('ada at example Punkt de', email, undefined, 'de')).toEqual({
      value: 'ada@example.de',
    });
  });

  it("holds the answer to the tool's own check", () => {
    const code: Wanted = { type: 'text', check: (v) => (v === 'ok' ? undefined : 'not ok') };
    expect(readAnswer('ok', code)).toEqual({ value: 'ok' });
    expect(readAnswer('ko', code)).toEqual({ error: 'not ok' });
  });
});

describe('readAnswer of choices to tick', () => {
  const toppings: Wanted = {
    type: 'choices',
    choices: [
      { title: 'Cheese', value: 'c' },
      { title: 'Ham', value: 'h' },
      { title: 'Extra cheese', value: 'xc' },
    ],
    maxItems: 2,
  };

  it('takes those named, all or none, or their places; held to maxItems', () => {
    expect(readAnswer('ham and extra cheese', toppings)).toEqual({ value: ['h', 'xc'] });
    expect(readAnswer('Cheese.', toppings)).toEqual({ value: ['c'] });
    expect(readAnswer('none', toppings)).toEqual({ value: [] });
    expect(readAnswer('the first and the second', toppings)).toEqual({ value: ['c', 'h'] });
    expect(readAnswer('13', toppings)).toEqual({ value: ['c', 'xc'] });
    expect(readAnswer('all of them', toppings)).toEqual({ error: 'pick at most 2' });
    expect(readAnswer('la prima e la terza', toppings, undefined, 'it')).toEqual({
      value: ['c', 'xc'],
    });
    expect(readAnswer('uno e tre', toppings, undefined, 'it')).toEqual({ value: ['c', 'xc'] });
    expect(readAnswer('nessuno', toppings, undefined, 'it')).toEqual({ value: [] });
    expect(readAnswer('un panino', toppings, undefined, 'it')).toMatchObject({
      error: /names none of/,
    });
    expect(readAnswer('keine', toppings, undefined, 'de')).toEqual({ value: [] });
    expect(readAnswer('todos', toppings, undefined, 'es')).toEqual({ error: 'pick at most 2' });
    expect(readAnswer('pineapple', toppings)).toEqual({
      error: '"pineapple" names none of: Cheese, Ham, Extra cheese',
    });
    expect(givenAnswer(['Ham', 'c'], toppings)).toEqual({ value: ['c', 'h'] });
    expect(givenAnswer('Ham', toppings)).toEqual({ value: ['h'] });
    expect(givenAnswer(['Ham', 'Tofu'], toppings)).toMatchObject({
      error: expect.stringMatching(/^the answer must be a list of "Cheese"/),
    });
  });
});

describe('givenAnswer', () => {
  it("checks the client's value: a choice by title or value, a number or its digits", () => {
    expect(givenAnswer('Extra large', sizes)).toEqual({ value: 'xl' });
    expect(givenAnswer('s', sizes)).toEqual({ value: 's' });
    expect(givenAnswer('medium', sizes)).toEqual({
      error: 'the answer must be one of "Large", "Extra large", "Small"',
    });
    expect(givenAnswer('4', { type: 'number' })).toEqual({ value: 4 });
    expect(givenAnswer('four', { type: 'number' })).toEqual({
      error: 'the answer must be a number',
    });
    expect(givenAnswer(4, { type: 'number', maximum: 3 })).toEqual({ error: '4 is over 3' });
    expect(givenAnswer(1234, { type: 'text' })).toEqual({ value: '1234' });
  });
});

describe('wantedAnswer', () => {
  it("tell the client what is wanted, and say a choice's options", () => {
    expect(wantedAnswer(sizes)).toEqual({
      type: 'choice',
      choices: ['Large', 'Extra large', 'Small'],
    });
    expect(wantedAnswer({ type: 'integer', minimum: 1 })).toEqual({ type: 'integer', minimum: 1 });
    expect(wantedAnswer({ type: 'text', maxLength: 9, format: 'email' })).toEqual({
      type: 'text',
      max_length: 9,
      format: 'email',
    });
    expect(spokenQuestion('Which size?', wantedAnswer(sizes))).toBe(
      'Which size? Large, Extra large or Small?',
    );
  });
});
