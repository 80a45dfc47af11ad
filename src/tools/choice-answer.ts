/**
 * The choices a user named in what they said or typed: by title (or a value that is a word), or
 * by place ("the second one", "la seconda", "2", keyed digits), in the session's language or
 * English. Pure: no Nest import.
 */
import { plainWords } from '../common/plain-words.js';
import { answerWords, type AnswerWords } from './answer-words.js';
import { readNumber, readNumbers } from './number-words.js';

/** One of a choice question's options: what the user hears and picks, what the tool gets. */
export interface Choice {
  title: string;
  value: string;
}

type Read = { value: string | string[] } | { error: string };

/**
 * A title or an utterance as they are compared: its plain words without accents, single spaces
 * between ("Caffè" is said "caffe" too).
 */
export function plain(text: string): string {
  return plainWords(text).join(' ');
}

/** The places named by ordinal ("the first", "l'ultima", "die zweite"), from 1. */
function ordinalPlaces(text: string, count: number, words: AnswerWords): number[] {
  // "l'ultima", "dell'ultimo": the article's apostrophe parts the words.
  const said = plain(text).split(/[ ']/);
  const places = words.ordinals.flatMap((forms, i) =>
    forms.some((f) => said.includes(f)) ? [i + 1] : [],
  );
  return words.last.some((w) => said.includes(w)) ? [...places, count] : places;
}

/**
 * The option the user named: by its title or value, or by its place ("the second one", "2"),
 * in `language` or English.
 */
export function readChoice(text: string, choices: readonly Choice[], language = 'en'): Read {
  const said = ` ${plain(text)} `;
  const found = named(said, choices);
  if (found.length === 1) return { value: found[0]!.value };
  if (found.length > 1)
    return { error: `"${text}" names more than one of: ${found.map((c) => c.title).join(', ')}` };
  let place = ordinalPlaces(text, choices.length, answerWords(language))[0] ?? 0;
  if (place === 0) {
    const number = readNumber(text, language, false);
    if (number !== undefined && said.trim().split(' ').length <= 3) place = number;
  }
  if (Number.isInteger(place) && place >= 1 && place <= choices.length)
    return { value: choices[place - 1]!.value };
  return { error: `"${text}" is none of: ${choices.map((c) => c.title).join(', ')}` };
}

/** The choices named in `said`, but those held in a longer one said ("large" in "extra large"). */
function named(said: string, choices: readonly Choice[]): Choice[] {
  // A value is a name too when it is a word ("xl" may be said; "s" or "a" would be found anywhere).
  const names = (c: Choice) => (c.value.length > 2 ? [c.title, c.value] : [c.title]);
  const found = choices.filter((c) =>
    names(c).some((name) => plain(name) !== '' && said.includes(` ${plain(name)} `)),
  );
  return found.filter(
    (c) =>
      !found.some(
        (d) =>
          d !== c &&
          d.title.length > c.title.length &&
          ` ${plain(d.title)} `.includes(` ${plain(c.title)} `),
      ),
  );
}

/**
 * The choices ticked: those named ("cheese and olives"), all or none of them, or their places
 * ("the first and the third", "1 and 3", "uno e tre", keyed "13"), in the choices' order; in
 * `language` or English.
 */
export function readChoices(text: string, choices: readonly Choice[], language = 'en'): Read {
  const said = ` ${plain(text)} `;
  const words = said.trim();
  const lexicon = answerWords(language);
  if (lexicon.all.includes(words)) return { value: choices.map((c) => c.value) };
  if (lexicon.none.includes(words)) return { value: [] };
  let picked = named(said, choices);
  if (picked.length === 0) {
    const places = new Set(ordinalPlaces(text, choices.length, lexicon));
    // Keyed digits ("13#"): each a place, for up to nine choices.
    if (/^\d+$/.test(words) && choices.length <= 9) for (const d of words) places.add(Number(d));
    else for (const n of readNumbers(text, language, false)) places.add(n);
    picked = choices.filter((_, i) => places.has(i + 1));
  }
  if (picked.length === 0)
    return { error: `"${text}" names none of: ${choices.map((c) => c.title).join(', ')}` };
  return { value: choices.filter((c) => picked.includes(c)).map((c) => c.value) };
}
