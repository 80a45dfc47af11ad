/**
 * Whether what the user said (or typed) while a call awaits approval is a plain yes or no. The
 * answer must be made only of the configured phrases (and a few fillers): "yes", "sure, go
 * ahead", "no thanks". Anything more ("yes, but make it 40") is not a plain answer: it is a new
 * turn, as any other utterance.
 */
import { plainWords } from '../common/plain-words.js';

export type SpokenAnswer = 'yes' | 'no';

export interface AnswerPhrases {
  yes: readonly string[];
  no: readonly string[];
}

/**
 * Words that go with either answer ("yes please", "no thanks", "sì grazie", "oui merci"), or with
 * a hold ("hmm, just a second"), in the languages of the default phrases. A configured phrase
 * wins over a filler ("ok" is a yes).
 */
const FILLERS = [
  'please',
  'thanks',
  'thank you',
  'uh',
  'um',
  'hmm',
  'hm',
  'er',
  'ehm',
  'eh',
  'ah',
  'oh',
  'well',
  'ok',
  'okay',
  'sorry',
  'just',
  'per favore',
  'grazie',
  'por favor',
  'gracias',
  "s'il vous plaît",
  'merci',
  'bitte',
  'danke',
  'obrigado',
  'obrigada',
];

export interface Phrase {
  words: string[];
  /** undefined for a filler, or a phrase in both lists. */
  answer: SpokenAnswer | undefined;
}

/**
 * The phrases of both lists and the fillers, longest first (so "no thanks" wins over "no"); a
 * phrase of a list is that answer though it is a filler too ("ok" is a yes), one of both lists
 * none.
 */
export function compilePhrases(phrases: AnswerPhrases): Phrase[] {
  const listed = new Map<string, SpokenAnswer | undefined>();
  for (const [answer, list] of [
    ['yes', phrases.yes],
    ['no', phrases.no],
  ] as const)
    for (const p of list) {
      const key = plainWords(p).join(' ');
      if (key === '') continue;
      listed.set(key, listed.has(key) && listed.get(key) !== answer ? undefined : answer);
    }
  const byText = new Map<string, SpokenAnswer | undefined>(FILLERS.map((f) => [f, undefined]));
  for (const [key, answer] of listed) byText.set(key, answer);
  return [...byText]
    .map(([text, answer]) => ({ words: text.split(' '), answer }))
    .sort((a, b) => b.words.length - a.words.length);
}

/** `yes` or `no` when `text` is nothing but phrases of that answer (and fillers); else undefined. */
export function spokenAnswer(text: string, phrases: readonly Phrase[]): SpokenAnswer | undefined {
  const said = plainWords(text);
  const answers = new Set<SpokenAnswer>();
  for (let i = 0; i < said.length;) {
    const match = phrases.find((p) => p.words.every((w, k) => said[i + k] === w));
    if (!match) return undefined;
    if (match.answer) answers.add(match.answer);
    i += match.words.length;
  }
  return answers.size === 1 ? [...answers][0] : undefined;
}
