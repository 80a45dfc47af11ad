import { spokenQuestion } from './spoken-question.js';

describe('spokenQuestion', () => {
  it("says a choice's options after the question, joined in the session's language", () => {
    const sizes = { type: 'choice' as const, choices: ['Small', 'Large'] };
    expect(spokenQuestion('Which size?', sizes)).toBe('Which size? Small or Large?');
    const taglie = { type: 'choice' as const, choices: ['Piccola', 'Media', 'Grande'] };
    expect(spokenQuestion('Quale taglia?', taglie, 'it-IT')).toBe(
      'Quale taglia? Piccola, Media o Grande?',
    );
    expect(spokenQuestion('Your name?', { type: 'text' })).toBe('Your name?');
  });

  it("says a number's range when the question is asked again, not the first time", () => {
    const guests = { type: 'integer' as const, minimum: 1, maximum: 8 };
    expect(spokenQuestion('How many guests?', guests)).toBe('How many guests?');
    expect(spokenQuestion('How many guests?', guests, 'en', true)).toBe(
      'How many guests? From 1 to 8.',
    );
    expect(spokenQuestion('Quanti ospiti?', guests, 'it', true)).toBe('Quanti ospiti? Da 1 a 8.');
    expect(spokenQuestion('Wie viele?', { type: 'number', minimum: 0.5 }, 'de', true)).toBe(
      'Wie viele? Mindestens 0,5.',
    );
    expect(spokenQuestion('¿Cuántos?', { type: 'integer', maximum: 9 }, 'es-MX', true)).toBe(
      '¿Cuántos? Como máximo 9.',
    );
    expect(spokenQuestion('How many?', { type: 'integer' }, 'en', true)).toBe('How many?');
    expect(spokenQuestion('How much?', { type: 'number', maximum: 2500 }, 'en', true)).toBe(
      'How much? At most 2,500.',
    );
    expect(spokenQuestion('Combien ?', guests, 'ja', true)).toBe('Combien ? From 1 to 8.');
  });
});
