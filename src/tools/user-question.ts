/**
 * A question a running call puts to its user that a yes or no does not answer (an MCP server's
 * form of one text, number or choice field): what it wants, and the answer read from what the
 * user said or typed, or from the value the client gave. Pure: no Nest import.
 */
import { readNumber } from './number-words.js';

/** One of a choice question's options: what the user hears and picks, what the tool gets. */
export interface Choice {
  title: string;
  value: string;
}

/** What a question wants for its answer; `check`: the tool's own rules (a format, say). */
export type Wanted = (
  | { type: 'text'; minLength?: number; maxLength?: number; format?: string }
  | { type: 'number' | 'integer'; minimum?: number; maximum?: number }
  | { type: 'choice'; choices: readonly Choice[] }
) & {
  check?: (value: string | number) => string | undefined;
  /** A plain no leaves it out, even for a text (a form's optional field). */
  optional?: boolean;
};

/** What the client is told of the answer a question wants (`tool_question`'s `answer`). */
export interface WantedAnswer {
  type: 'text' | 'number' | 'integer' | 'choice';
  choices?: string[];
  minimum?: number;
  maximum?: number;
  min_length?: number;
  max_length?: number;
  format?: string;
  /** A form's optional field: `null` (or a plain no) leaves it out. */
  optional?: true;
}

export type Read = { value: string | number } | { error: string };

export function wantedAnswer(wanted: Wanted): WantedAnswer {
  return { ...wantedKind(wanted), ...(wanted.optional && { optional: true }) };
}

function wantedKind(wanted: Wanted): WantedAnswer {
  switch (wanted.type) {
    case 'choice':
      return { type: 'choice', choices: wanted.choices.map((c) => c.title) };
    case 'text':
      return {
        type: 'text',
        ...(wanted.minLength !== undefined && { min_length: wanted.minLength }),
        ...(wanted.maxLength !== undefined && { max_length: wanted.maxLength }),
        ...(wanted.format !== undefined && { format: wanted.format }),
      };
    case 'number':
    case 'integer':
      return {
        type: wanted.type,
        ...(wanted.minimum !== undefined && { minimum: wanted.minimum }),
        ...(wanted.maximum !== undefined && { maximum: wanted.maximum }),
      };
  }
}

/** The question as said in a voice session: a choice's options after it ("Red, green or blue?"). */
export function spokenQuestion(prompt: string, answer: WantedAnswer): string {
  const choices = answer.choices ?? [];
  if (answer.type !== 'choice' || choices.length === 0) return prompt;
  const list =
    choices.length === 1
      ? choices[0]!
      : `${choices.slice(0, -1).join(', ')} or ${choices[choices.length - 1]!}`;
  return `${prompt} ${list}?`.trim();
}

/** Lower case, punctuation to spaces, single spaces: how a title and an utterance are compared. */
function plain(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[’‘`]/g, "'")
    .replace(/[^\p{L}\p{N}\p{M}']+/gu, ' ')
    .trim();
}

const ORDINALS = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth'];

/** The option the user named: by its title or value, or by its place ("the second one", "2"). */
function readChoice(text: string, choices: readonly Choice[]): Read {
  const said = ` ${plain(text)} `;
  // A value is a name too when it is a word ("xl" may be said; "s" or "a" would be found anywhere).
  const names = (c: Choice) => (c.value.length > 2 ? [c.title, c.value] : [c.title]);
  const named = choices.filter((c) =>
    names(c).some((name) => plain(name) !== '' && said.includes(` ${plain(name)} `)),
  );
  // "extra large" names "large" too: the longest name that holds the others wins.
  const longest = named.sort((a, b) => plain(b.title).length - plain(a.title).length)[0];
  if (longest && named.every((c) => ` ${plain(longest.title)} `.includes(` ${plain(c.title)} `)))
    return { value: longest.value };
  if (named.length > 1)
    return { error: `"${text}" names more than one of: ${named.map((c) => c.title).join(', ')}` };
  const words = said.trim().split(' ');
  let place = words.includes('last')
    ? choices.length
    : ORDINALS.findIndex((o) => words.includes(o)) + 1;
  if (place === 0) {
    const number = readNumber(text);
    if (number !== undefined && plain(text).split(' ').length <= 3) place = number;
  }
  if (Number.isInteger(place) && place >= 1 && place <= choices.length)
    return { value: choices[place - 1]!.value };
  return { error: `"${text}" is none of: ${choices.map((c) => c.title).join(', ')}` };
}

/** An email address as speech-to-text writes one said aloud ("ada at example dot com"). */
function spokenEmail(text: string): string {
  if (text.includes('@')) return text.replace(/\s+/g, '');
  return text
    .toLowerCase()
    .replace(/\s+at\s+/g, '@')
    .replace(/\s+dot\s+/g, '.')
    .replace(/\s+/g, '');
}

/** The answer in what the user said or typed, or why it does not answer the question. */
export function readAnswer(said: string, wanted: Wanted): Read {
  const text = said.trim();
  switch (wanted.type) {
    case 'choice':
      return checked(readChoice(text, wanted.choices), wanted);
    case 'text': {
      // Speech-to-text ends a sentence with a full stop the answer does not have.
      const answer = text.replace(/^["'“]+|["'”]+$/g, '').replace(/[.!?。]+$/u, '');
      return checked({ value: wanted.format === 'email' ? spokenEmail(answer) : answer }, wanted);
    }
    case 'number':
    case 'integer': {
      const number = readNumber(text);
      if (number === undefined) return { error: `"${text}" has no number in it` };
      return checked({ value: number }, wanted);
    }
  }
}

/**
 * The value the client gave (`tool_answer`), or why it does not answer the question: a choice's
 * title or value, a text, a number (or its digits).
 */
export function givenAnswer(value: string | number, wanted: Wanted): Read {
  if (wanted.type === 'choice') {
    const picked = wanted.choices.find(
      (c) => c.title === value || c.value === value || plain(c.title) === plain(String(value)),
    );
    const titles = wanted.choices.map((c) => JSON.stringify(c.title)).join(', ');
    return picked
      ? checked({ value: picked.value }, wanted)
      : { error: `the answer must be one of ${titles}` };
  }
  // A number for a text (keyed digits), digits for a number: taken as they are meant.
  if (wanted.type === 'text') return checked({ value: String(value) }, wanted);
  const number = typeof value === 'number' ? value : NUMERAL.test(value) ? Number(value) : NaN;
  return Number.isFinite(number)
    ? checked({ value: number }, wanted)
    : { error: `the answer must be a number` };
}

const NUMERAL = /^\s*-?\d+(?:\.\d+)?\s*$/;

/** `read` held to the question's bounds and the tool's own check. */
function checked(read: Read, wanted: Wanted): Read {
  if ('error' in read) return read;
  const { value } = read;
  const error = bounds(value, wanted) ?? wanted.check?.(value);
  return error ? { error } : read;
}

function bounds(value: string | number, wanted: Wanted): string | undefined {
  if (wanted.type === 'text' && typeof value === 'string') {
    const length = [...value].length;
    if (length === 0) return 'the answer is empty';
    if (wanted.minLength !== undefined && length < wanted.minLength)
      return `the answer must have at least ${wanted.minLength} characters`;
    if (wanted.maxLength !== undefined && length > wanted.maxLength)
      return `the answer must have at most ${wanted.maxLength} characters`;
  }
  if ((wanted.type === 'number' || wanted.type === 'integer') && typeof value === 'number') {
    if (wanted.type === 'integer' && !Number.isInteger(value))
      return `${value} is not a whole number`;
    if (wanted.minimum !== undefined && value < wanted.minimum)
      return `${value} is under ${wanted.minimum}`;
    if (wanted.maximum !== undefined && value > wanted.maximum)
      return `${value} is over ${wanted.maximum}`;
  }
  return undefined;
}
