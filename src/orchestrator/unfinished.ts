/**
 * Whether a user's words, as transcribed, sound cut off mid-thought: "I'd like a table for", "my
 * number is, um…". A caller who pauses to think is not answered at once (VAD_UNFINISHED_WAIT_MS).
 * Pure: no Nest import.
 */
import { languageCode } from '../common/language-code.js';

/**
 * Words no sentence ends with, by language: conjunctions, articles, prepositions and hesitations.
 * Words that may end one are left out ("so", "in", "to" of "I'd like to.", "because" of "Just
 * because.", Italian "perché", Spanish "este", German "mit" and "das"), and so are
 * the letters that may be a name ("option A", Portuguese "vi-a"): a caller who ended is not kept
 * waiting.
 */
const OPEN_WORDS: Record<string, ReadonlySet<string>> = {
  en: new Set(
    'and or but the an my your our their its of for with from at than if whether into um umm uh uhm er erm'.split(
      ' ',
    ),
  ),
  it: new Set(
    'e ed o oppure ma quindi il lo gli le un uno una di del della dei delle da con su per tra fra che cioè ehm uhm'.split(
      ' ',
    ),
  ),
  es: new Set('y pero porque el la los las un una de del con para por que en eh em'.split(' ')),
  fr: new Set(
    'et ou mais parce qu le la les un une de du des au aux avec pour dans que mon ma mes euh'.split(
      ' ',
    ),
  ),
  de: new Set(
    'und oder aber weil dass ein eine einen einem einer für von zum zur äh ähm öh'.split(' '),
  ),
  pt: new Set(
    'e ou mas porque os as um uma de do da dos das com para em no na que hum ahn'.split(' '),
  ),
};

/**
 * True when `text` ends on a comma, a colon, a dash or an ellipsis, or on a word of `OPEN_WORDS`
 * for `language` (its primary code), a full stop after it aside (speech-to-text puts one at the
 * end of what it heard, finished or not). A question or exclamation mark ends the thought
 * whatever precedes it. Other languages: the punctuation only.
 */
export function soundsUnfinished(text: string, language: string): boolean {
  const words = text.trim();
  if (/[?!？！]$/u.test(words)) return false;
  if (/(\.\.|…|[,，:;\-–—])$/u.test(words)) return true;
  const last = /([\p{L}\p{M}]+)['’]?[.。"'”’»)\s]*$/u.exec(words)?.[1];
  if (!last) return false;
  return OPEN_WORDS[languageCode(language)]?.has(last.toLowerCase()) ?? false;
}
