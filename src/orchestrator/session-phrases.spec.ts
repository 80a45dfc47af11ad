import { readNamedPhrases, type NamedPhrases } from '../common/named-phrases.js';
import { sessionPhrase } from './session-phrases.js';

describe("a session's own phrases (session.update's phrases)", () => {
  it('takes a phrase, a list said in turn, or either by language code, for any phrase name', () => {
    expect(
      readNamedPhrases({
        wait: 'Just a second.',
        still: ['Still on it.', 'Nearly there.'],
        idle: { EN: 'Hello?', 'pt-BR': ['Alô?', 'Ainda está aí?'] },
        error: '',
      }),
    ).toEqual({
      wait: { '*': 'Just a second.' },
      still: { '*': ['Still on it.', 'Nearly there.'] },
      idle: { en: 'Hello?', 'pt-br': ['Alô?', 'Ainda está aí?'] },
      error: { '*': '' },
    });
    // As it keeps them (a saved session's): read the same.
    const kept = readNamedPhrases({ hold: { '*': 'Sure.', it: 'Certo.' } });
    expect(readNamedPhrases(kept as Record<string, unknown>)).toEqual(kept);
  });

  it('refuses what it could not say, naming the phrase', () => {
    expect(readNamedPhrases({ waiting: 'Hm.' })).toMatch(
      /^unknown phrase "waiting" in "phrases": the phrases are wait, still, still_here, hold, confirm, unclear, question_repeat, error, idle, idle_goodbye, time_limit_goodbye$/,
    );
    const bad =
      /^"phrases.wait" must be a phrase \(at most 500 characters; "" says nothing\), a list of 1 to 20 phrases said in turn, or an object of up to 50 language codes and either/;
    for (const value of [3, null, [], ['One moment.', ''], 'x'.repeat(501), Array(21).fill('Hm.')])
      expect(readNamedPhrases({ wait: value })).toMatch(bad);
    expect(readNamedPhrases({ wait: { english: 'Wait.' } })).toMatch(/\(not "english"\)$/);
    expect(readNamedPhrases({ wait: { en: 5 } })).toMatch(/\(not "en"\)$/);
  });

  it("says the session's phrase, else the engine's, in the session's language, in turn", () => {
    const engine = { en: 'One moment.', it: 'Un momento.' };
    const session = {
      settings: {
        language: 'en',
        phrases: readNamedPhrases({
          wait: ['Just a second.', 'Hang on.'],
          idle: '',
        }) as NamedPhrases,
      },
    };
    const said = [1, 2, 3].map(() => sessionPhrase(session, 'wait', engine));
    expect(said).toEqual(['Just a second.', 'Hang on.', 'Just a second.']);
    // "" says nothing, rather than the engine's phrase.
    expect(sessionPhrase(session, 'idle', { en: 'Are you there?' })).toBe('');
    expect(sessionPhrase(session, 'hold', { en: 'Sure.' })).toBe('Sure.');
    expect(sessionPhrase({ settings: { language: 'it' } }, 'wait', engine)).toBe('Un momento.');
  });
});
