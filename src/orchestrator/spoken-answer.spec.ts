import { compilePhrases, spokenAnswer } from './spoken-answer.js';
import { DEFAULT_CONFIRM_NO, DEFAULT_CONFIRM_YES } from '../config/env-defaults.js';

const phrases = compilePhrases({ yes: DEFAULT_CONFIRM_YES, no: DEFAULT_CONFIRM_NO });
const answer = (text: string) => spokenAnswer(text, phrases);

describe('spokenAnswer', () => {
  it.each([
    'yes',
    'Yes.',
    'Yeah, sure!',
    'OK, go ahead',
    // A word of the list though it is a filler beside others ("ok, sorry, go ahead").
    'OK.',
    'Okay, thanks',
    'yes please',
    'Uh, yes. Do it.',
    'Sure thing',
    "That's right",
  ])('hears %j as yes', (text) => expect(answer(text)).toBe('yes'));

  it.each(['Sì, grazie.', "Oui, d'accord.", 'Ja, bitte!', 'Claro, adelante.', 'Sim, obrigado.'])(
    'hears %j as yes, in the languages of the voices',
    (text) => expect(answer(text)).toBe('yes'),
  );

  // Typed without its accents, or with a sound before it.
  it.each([
    ['Si, grazie', 'yes'],
    ['SÌ', 'yes'],
    ['hmm, no', 'no'],
    ['Ok, sorry, go ahead', 'yes'],
  ])('hears %j as %s, accents and fillers aside', (text, expected) =>
    expect(answer(text)).toBe(expected),
  );

  it.each(['No, grazie.', 'Non merci.', 'Nein, danke.', 'Não, obrigada.', 'Lascia stare'])(
    'hears %j as no, in the languages of the voices',
    (text) => expect(answer(text)).toBe('no'),
  );

  // A transcript or a phone keyboard writes a curly apostrophe, an input method full-width letters.
  it.each([
    ['Don’t.', 'no'],
    ['That’s right', 'yes'],
    ['Ｙｅｓ', 'yes'],
  ])('hears %j as %s, however it is written', (text, expected) =>
    expect(answer(text)).toBe(expected),
  );

  it.each(['no', 'No thanks.', "Don't.", 'Nope, cancel that', 'No, wait!', 'never mind'])(
    'hears %j as no',
    (text) => expect(answer(text)).toBe('no'),
  );

  it.each([
    '',
    'please',
    'yes, but make it 40 euros',
    'yes no',
    'what is the weather in Paris?',
    'no idea, what do you think',
    'okay so the thing is',
  ])('hears %j as no plain answer (a new turn)', (text) => expect(answer(text)).toBeUndefined());

  it('takes the configured phrases, in any language; one in both lists answers neither', () => {
    const own = compilePhrases({
      yes: ['oui', "d'accord", 'vas-y', 'bitte'],
      no: ['non', 'bitte'],
    });
    expect(spokenAnswer("Oui, d'accord", own)).toBe('yes');
    expect(spokenAnswer('Vas-y !', own)).toBe('yes');
    expect(spokenAnswer('Non.', own)).toBe('no');
    expect(spokenAnswer('ja bitte', own)).toBeUndefined();
    expect(spokenAnswer('oui bitte', own)).toBe('yes');
    expect(spokenAnswer('yes', own)).toBeUndefined();
  });

  it('answers nothing when no phrases are configured', () => {
    expect(spokenAnswer('yes', compilePhrases({ yes: [], no: [] }))).toBeUndefined();
  });
});
