/**
 * A tool's `user_given` arguments: values the model may not supply itself, only pass on from what
 * the user said, typed or keyed in the conversation — an order number, an amount, an account, a
 * name. A model that makes one up (a plausible order number), or takes it from a tool's result or
 * a document (an account number planted there), is refused before anything is sent, and told to
 * ask the user. Matched leniently, as speech-to-text and people write values: letters and digits
 * alone, accents and case aside ("B-7" said "b 7"), a number said in words ("five hundred"), a
 * number's digits said apart ("five five five, zero one"). Pure: no Nest import.
 */
import { fold } from '../common/plain-words.js';
import { readNumbers } from './number-words.js';

/** What the user gave in the conversation, made ready to look values up in. */
export interface UserWords {
  /** Their letters and digits, folded, every message run together. */
  text: string;
  /** The digits of the numbers they said, in order, run together (words included). */
  digits: string;
  /** The numbers they said. */
  numbers: number[];
}

const plain = (text: string) => fold(text).replace(/[^\p{L}\p{N}]+/gu, '');

/** The user's messages (`texts`), in the session's `language`, as `user_given` reads them. */
export function userWords(texts: readonly string[], language: string): UserWords {
  const numbers = texts.flatMap((text) => readNumbers(text, language, false));
  return {
    text: texts.map(plain).join(''),
    digits: numbers
      .filter((n) => Number.isInteger(n) && n >= 0)
      .map(String)
      .join(''),
    numbers,
  };
}

/** Whether the number `value` (or a string of digits) was given: said as such, or digit by digit. */
function numberGiven(value: number, words: UserWords): boolean {
  if (words.numbers.some((n) => Math.abs(n - value) < 1e-9)) return true;
  return Number.isInteger(value) && value >= 0 && words.digits.includes(String(value));
}

/**
 * Whether `value` was given by the user: a number said; a string each of whose parts (its runs
 * of letters and digits) was said — digits as a number or digit by digit, the rest as written;
 * a list item by item. Other values (true, an object) are not the user's to give: taken.
 */
export function givenByUser(value: unknown, words: UserWords): boolean {
  if (typeof value === 'number') return numberGiven(value, words);
  if (Array.isArray(value)) return value.every((item) => givenByUser(item, words));
  if (typeof value !== 'string') return true;
  const parts = fold(value).match(/[\p{L}\p{N}]+/gu) ?? [];
  return parts.every((part) =>
    /^\d+$/.test(part)
      ? words.digits.includes(part) || words.text.includes(part) || numberGiven(+part, words)
      : words.text.includes(part),
  );
}

/**
 * The first of `names` whose value in `args` the user did not give, and that value; undefined
 * when each was given (or left out: the tool's parameters say whether it may be).
 */
export function notGiven(
  names: readonly string[],
  args: Record<string, unknown>,
  words: () => UserWords,
): { name: string; value: unknown } | undefined {
  let read: UserWords | undefined;
  for (const name of names) {
    const value = args[name];
    if (value === undefined || value === null) continue;
    if (!givenByUser(value, (read ??= words()))) return { name, value };
  }
  return undefined;
}
