/**
 * What a user says to ask a waiting question or approval to wait ("one moment", "let me think",
 * "un attimo", "einen Augenblick"): it answers nothing and starts no turn; the question waits on
 * (within TOOL_CONFIRM_TIMEOUT_SECS), and is not asked again. In the languages of the default
 * yes and no phrases. Pure: no Nest import.
 */
import { plain } from '../tools/choice-answer.js';

const HOLD = [
  // English
  'one moment',
  'just a moment',
  'a moment',
  'one sec',
  'one second',
  'just a second',
  'a second',
  'hold on',
  'hang on',
  'wait',
  'wait a moment',
  'wait a second',
  'let me think',
  'let me check',
  'let me see',
  // Italian
  'un attimo',
  'un momento',
  'un secondo',
  'aspetta',
  'aspetti',
  'aspetta un attimo',
  'aspetti un attimo',
  'fammi pensare',
  'mi faccia pensare',
  'fammi vedere',
  // Spanish
  'un segundo',
  'espera',
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
  'attends',
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
  'warte',
  'warten sie',
  'lass mich nachdenken',
  'lassen sie mich nachdenken',
];

const HOLDS = new Set(HOLD.map(plain));

/** Sounds and courtesies around a hold ("hmm, one moment please"). */
const FILLER = new RegExp(
  `(^| )(${['uh', 'um', 'hmm', 'hm', 'er', 'ehm', 'eh', 'ah', 'oh', 'mmm', 'well', 'ok', 'okay', 'please', 'sorry', 'per favore', 'bitte', 'por favor', "s'il vous plait", 'just'].join('|')})(?= |$)`,
  'g',
);

/** Whether `text` only asks the waiting question to wait. */
export function holdsOn(text: string): boolean {
  const said = plain(text);
  // Portuguese "um momento" is no English "um" before "momento".
  return HOLDS.has(said) || HOLDS.has(said.replace(FILLER, ' ').replace(/ +/g, ' ').trim());
}
