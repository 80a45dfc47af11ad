/**
 * Phrases by name (`{"wait": …, "idle": …}`): what the engine says itself, given instead of its
 * settings by a session (`session.update`'s `phrases`) or an assistant (a handoff's). Pure: no
 * Nest import.
 */
import { isPhraseList, type Phrases } from './phrases.js';
import { LANGUAGE_CODE } from './language-code.js';

/** The phrases a session or an assistant may give, and the setting each one replaces. */
export const PHRASE_SETTINGS = {
  wait: 'SPEECH_TOOL_WAIT_PHRASE',
  still: 'SPEECH_TOOL_STILL_PHRASE',
  still_here: 'SPEECH_STILL_HERE_PHRASE',
  hold: 'SPEECH_HOLD_PHRASE',
  confirm: 'SPEECH_CONFIRM_PHRASE',
  unclear: 'SPEECH_UNCLEAR_PHRASE',
  question_repeat: 'SPEECH_QUESTION_REPEAT_PHRASE',
  error: 'SPEECH_ERROR_PHRASE',
  idle: 'USER_IDLE_PHRASE',
  idle_goodbye: 'USER_IDLE_GOODBYE',
  time_limit_goodbye: 'SESSION_MAX_GOODBYE',
} as const;

export type PhraseName = keyof typeof PHRASE_SETTINGS;
export type NamedPhrases = Partial<Record<PhraseName, Phrases>>;

const MAX_CHARS = 500;
const MAX_LIST = 20;
const MAX_LANGUAGES = 50;

const isPhrase = (value: unknown): value is string =>
  typeof value === 'string' && value.length <= MAX_CHARS;
const isList = (value: unknown): value is string[] => isPhraseList(value, MAX_LIST, MAX_CHARS);

/**
 * `value` (`session.update`'s `phrases`, a saved session's, a handoff's) read: each name's phrase,
 * list of phrases said in turn, or object of language codes and either, as the settings take them
 * (`{"en":["One moment.","Let me check."],"it":"Un momento."}`); or why it is not.
 */
export function readNamedPhrases(value: Record<string, unknown>): NamedPhrases | string {
  const read: NamedPhrases = {};
  for (const [name, phrases] of Object.entries(value)) {
    if (!Object.hasOwn(PHRASE_SETTINGS, name))
      return `unknown phrase ${JSON.stringify(name)} in "phrases": the phrases are ${Object.keys(PHRASE_SETTINGS).join(', ')}`;
    const bad = `"phrases.${name}" must be a phrase (at most ${MAX_CHARS} characters; "" says nothing), a list of 1 to ${MAX_LIST} phrases said in turn, or an object of up to ${MAX_LANGUAGES} language codes and either`;
    if (isPhrase(phrases) || isList(phrases)) {
      read[name as PhraseName] = { '*': phrases };
      continue;
    }
    if (typeof phrases !== 'object' || phrases === null || Array.isArray(phrases)) return bad;
    const entries = Object.entries(phrases);
    const wrong = entries.find(
      ([code, p]) => (code !== '*' && !LANGUAGE_CODE.test(code)) || (!isPhrase(p) && !isList(p)),
    );
    if (entries.length > MAX_LANGUAGES) return bad;
    // (`*`: for any language, as a phrase or list given alone is kept.)
    if (wrong) return `${bad} (not ${JSON.stringify(wrong[0])})`;
    read[name as PhraseName] = Object.fromEntries(
      entries.map(([code, p]) => [code === '*' ? code : code.toLowerCase(), p as string]),
    );
  }
  return read;
}
