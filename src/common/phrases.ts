/**
 * Phrases the engine says itself ("One moment.", the hold phrase, the idle prompt), by language
 * code (`*`: any language): one phrase, or several said in turn, so that a caller who waits twice
 * does not hear the same words twice. Pure: no Nest import.
 */
import { languageCode } from './language-code.js';

export type Phrases = Readonly<Record<string, string | readonly string[]>>;

/** Several phrases said in turn: 1 to `most` strings, none blank, each at most `chars` long. */
export const isPhraseList = (
  value: unknown,
  most = Infinity,
  chars = Infinity,
): value is string[] =>
  Array.isArray(value) &&
  value.length >= 1 &&
  value.length <= most &&
  value.every((p) => typeof p === 'string' && p.trim() !== '' && p.length <= chars);

/** How many phrases of each list each session (or the process, for none) has been given. */
const given = new WeakMap<object, WeakMap<readonly string[], number>>();
const PROCESS = {};

/**
 * The phrase for a session's language: its own code (`pt-br`), else its primary one (`pt`), else
 * the phrase for any language (`*`); none in another language than the caller's. Of several, the
 * next in turn for `session` (the first, the second, …, the first again).
 */
export function phraseFor(phrases: Phrases, language: string, session: object = PROCESS): string {
  const code = language.toLowerCase();
  const phrase = phrases[code] ?? phrases[languageCode(code)] ?? phrases['*'] ?? '';
  if (typeof phrase === 'string') return phrase;
  let counts = given.get(session);
  if (!counts) given.set(session, (counts = new WeakMap()));
  const n = counts.get(phrase) ?? 0;
  counts.set(phrase, n + 1);
  return phrase[n % phrase.length] ?? '';
}
