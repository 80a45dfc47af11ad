import { spellCodes } from './spelled-codes.js';

describe('spellCodes', () => {
  it.each([
    ['Your booking number is 48213977.', 'Your booking number is 4 8 2 1 3 9 7 7.'],
    ['Call us on +39 06 1234 5678.', 'Call us on +3 9, 0 6, 1 2 3 4, 5 6 7 8.'],
    ['Call +1 (555) 012-3456 now', 'Call +1, 5 5 5, 0 1 2, 3 4 5 6 now'],
    ['Your reference is XK429P.', 'Your reference is X K 4 2 9 P.'],
    ['Invoice ABC-123 is paid.', 'Invoice A B C, 1 2 3 is paid.'],
    ['The code: 7QF93K2', 'The code: 7 Q F 9 3 K 2'],
    ['Order 004512 ships today.', 'Order 0 0 4 5 1 2 ships today.'],
  ])('spells %j', (text, spoken) => {
    expect(spellCodes(text)).toBe(spoken);
  });

  it.each([
    'It costs 1,250,000 euros.',
    'It costs 1.250.000 euro.',
    'It costs $120000 a year.',
    'It costs € 120000.',
    'The population is 2300000.',
    'In 2026, on 2026-12-05 at 14:30, or 05.12.2026.',
    'Pi is 3.14159265.',
    'COVID-19 rules, an MP3, an A320, invoice INV-7.',
    'Room 12345 is free.',
    'Call 555-0123.',
    'Is it +20 degrees?',
  ])('leaves %j as it is', (text) => {
    expect(spellCodes(text)).toBe(text);
  });
});
