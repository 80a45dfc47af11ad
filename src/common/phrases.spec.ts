import { phraseFor } from './phrases.js';

describe('phraseFor', () => {
  const phrases = { en: 'One moment.', pt: 'Um momento.', 'pt-br': 'Só um momento.' };
  it("takes the session's language, then its primary code, then the phrase for any language", () => {
    expect(phraseFor(phrases, 'pt-BR')).toBe('Só um momento.');
    expect(phraseFor(phrases, 'pt-pt')).toBe('Um momento.');
    expect(phraseFor(phrases, 'en-us')).toBe('One moment.');
    expect(phraseFor({ ...phrases, '*': 'Hold on.' }, 'ja')).toBe('Hold on.');
  });

  it('says nothing rather than speak another language than the caller', () => {
    expect(phraseFor(phrases, 'ja')).toBe('');
  });
});

describe('phraseFor, of several phrases', () => {
  const phrases = { en: ['One moment.', 'Let me check.', 'Just a second.'], it: 'Un momento.' };

  it('gives each session the next in turn, from the first', () => {
    const ada = {};
    const bob = {};
    const said = [ada, ada, bob, ada, ada, bob].map((s) => phraseFor(phrases, 'en-GB', s));
    expect(said).toEqual([
      'One moment.',
      'Let me check.',
      'One moment.',
      'Just a second.',
      'One moment.',
      'Let me check.',
    ]);
    expect(phraseFor(phrases, 'it', ada)).toBe('Un momento.');
  });

  it('counts each list apart, and in turn across the process for no session', () => {
    const ada = {};
    const other = { en: ['Sure.', 'Of course.'] };
    expect(phraseFor(phrases, 'en', ada)).toBe('One moment.');
    expect(phraseFor(other, 'en', ada)).toBe('Sure.');
    expect(phraseFor(other, 'en', ada)).toBe('Of course.');
    const shared = { '*': ['A.', 'B.'] };
    expect([phraseFor(shared, 'ja'), phraseFor(shared, 'de'), phraseFor(shared, 'en')]).toEqual([
      'A.',
      'B.',
      'A.',
    ]);
  });
});
