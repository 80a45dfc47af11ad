/**
 * A call's question as a voice session says it: a choice's options after it, and, when it is
 * asked again, the range a number must be in. In the session's language (English's words for a
 * language not known here). Pure: no Nest import.
 */
import { answerWords } from './answer-words.js';
import { languageCode } from '../common/language-code.js';
import type { WantedAnswer } from './user-question.js';

/** "From 1 to 8.", "At least 1.", "At most 8.", by language code. */
const RANGES: Record<string, [string, string, string]> = {
  en: ['From {min} to {max}.', 'At least {min}.', 'At most {max}.'],
  it: ['Da {min} a {max}.', 'Almeno {min}.', 'Al massimo {max}.'],
  es: ['De {min} a {max}.', 'Al menos {min}.', 'Como máximo {max}.'],
  fr: ['De {min} à {max}.', 'Au moins {min}.', 'Au plus {max}.'],
  pt: ['De {min} a {max}.', 'Pelo menos {min}.', 'No máximo {max}.'],
  de: ['Von {min} bis {max}.', 'Mindestens {min}.', 'Höchstens {max}.'],
};

/** The range a number question's answer must be in, said in `language`; '' when unbounded. */
function spokenRange(answer: WantedAnswer, language: string): string {
  const { minimum: min, maximum: max } = answer;
  if (min === undefined && max === undefined) return '';
  const [both, least, most] = RANGES[languageCode(language)] ?? RANGES.en!;
  const phrase = min !== undefined && max !== undefined ? both : min !== undefined ? least : most;
  const said = (n: number | undefined) => (n === undefined ? '' : numberIn(language, n));
  return phrase.replace('{min}', said(min)).replace('{max}', said(max));
}

/** `n` as `language` writes it (German "0,5", "1.000"), for the speech synthesiser to read. */
function numberIn(language: string, n: number): string {
  try {
    return new Intl.NumberFormat(language).format(n);
  } catch {
    return String(n);
  }
}

/**
 * The question as said in a voice session: a choice's options after it ("Red, green or blue?"),
 * joined in the session's `language`; asked `again` (the answer did not fit), a number's range
 * after it ("How many guests? From 1 to 8.").
 */
export function spokenQuestion(
  prompt: string,
  answer: WantedAnswer,
  language = 'en',
  again = false,
): string {
  if (answer.type === 'number' || answer.type === 'integer')
    return again ? `${prompt} ${spokenRange(answer, language)}`.trim() : prompt;
  const choices = answer.choices ?? [];
  if (choices.length === 0) return prompt;
  const { or } = answerWords(language);
  const list =
    choices.length === 1
      ? choices[0]!
      : `${choices.slice(0, -1).join(', ')} ${or} ${choices[choices.length - 1]!}`;
  return `${prompt} ${list}?`.trim();
}
