/**
 * What a user says to ask a waiting question or approval to wait ("one moment", "let me think",
 * "un attimo", "einen Augenblick"): it answers nothing and starts no turn; the question waits on,
 * its time allowed started again (`holdWaits`), and is not asked again. In the languages of the default
 * yes and no phrases; a word those lists hold ("wait" is a no) is theirs. Pure: no Nest import.
 */
import { compilePhrases, spokenAnswer } from './spoken-answer.js';

const HOLD = [
  // English
  'one moment',
  'a moment',
  'one sec',
  'one second',
  'a second',
  'hold on',
  'hang on',
  'wait a moment',
  'wait a second',
  'let me think',
  'let me check',
  'let me see',
  // Italian
  'un attimo',
  'un momento',
  'un secondo',
  'aspetti',
  'aspetta un attimo',
  'aspetti un attimo',
  'fammi pensare',
  'mi faccia pensare',
  'fammi vedere',
  // Spanish
  'un segundo',
  'espere',
  'espera un momento',
  'espere un momento',
  'déjame pensar',
  'déjeme pensar',
  'déjame ver',
  // French
  'un instant',
  'un moment',
  'une seconde',
  'attendez',
  'laisse-moi réfléchir',
  'laissez-moi réfléchir',
  // Portuguese
  'um momento',
  'um segundo',
  'deixa-me pensar',
  'deixe-me pensar',
  'deixa eu pensar',
  // German
  'moment',
  'einen moment',
  'augenblick',
  'einen augenblick',
  'warten sie',
  'lass mich nachdenken',
  'lassen sie mich nachdenken',
];

/** The holds, matched as TOOL_CONFIRM_YES's phrases are: nothing else but fillers around them. */
const HOLDS = compilePhrases({ yes: HOLD, no: [] });

/** Whether `text` only asks the waiting question to wait. */
export function holdsOn(text: string): boolean {
  return spokenAnswer(text, HOLDS) === 'yes';
}
