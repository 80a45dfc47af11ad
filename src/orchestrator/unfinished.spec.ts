import { soundsUnfinished } from './unfinished.js';

describe('soundsUnfinished', () => {
  it.each([
    ["I'd like to book a table for", 'en'],
    ["I'd like to book a table for.", 'en'],
    ['My account number is, um', 'en'],
    ['My account number is...', 'en'],
    ['My account number is…', 'en'],
    ['The thing is,', 'en'],
    ['Two coffees and', 'en-GB'],
    ['Vorrei prenotare un tavolo per', 'it'],
    ['Una pizza e', 'it'],
    ['Quiero reservar una mesa para', 'es'],
    ['Café y', 'es'],
    ['Je voudrais réserver une table pour', 'fr'],
    ["C'est parce qu'", 'fr'],
    ['Ich möchte einen Tisch für', 'de'],
    ['Eu queria reservar uma mesa para', 'pt-BR'],
    ['Meine Nummer ist ähm', 'de'],
  ])('hears %j (%s) as unfinished', (text, language) => {
    expect(soundsUnfinished(text, language)).toBe(true);
  });

  it.each([
    ["I'd like to book a table for four.", 'en'],
    ['What is the weather like in Paris today?', 'en'],
    ['Is that for?', 'en'],
    ['And?', 'en'],
    ['I think so.', 'en'],
    ["Yes, I'd like to.", 'en'],
    ['Just because.', 'en'],
    ['Non so perché.', 'it'],
    ['Quiero este.', 'es'],
    ['Come in.', 'en'],
    ["I'll take option A.", 'en'],
    ['Yes.', 'en'],
    ['', 'en'],
    ['Ich komme mit.', 'de'],
    ['Ich weiß das.', 'de'],
    ['Sim, vi-a.', 'pt'],
    // Another language's words: only punctuation tells.
    ['Ik wil een tafel voor', 'nl'],
    // English words in an Italian session.
    ['Un tavolo for', 'it'],
  ])('hears %j (%s) as finished', (text, language) => {
    expect(soundsUnfinished(text, language)).toBe(false);
  });

  it('hears a trailing comma or ellipsis as unfinished in any language', () => {
    expect(soundsUnfinished('Ik wil een tafel voor...', 'nl')).toBe(true);
    expect(soundsUnfinished('我想订一张桌子，', 'zh')).toBe(true);
  });
});
