/**
 * A question a running call puts to its user that a yes or no does not answer (an MCP server's
 * form field, a code tool's `context.ask`): what it wants, and the answer read from what the
 * user said or typed, or from the value the client gave. Pure: no Nest import.
 */
import { plain, readChoice, readChoices, type Choice } from './choice-answer.js';
import { fold } from '../common/plain-words.js';
import { answerWords } from './answer-words.js';
import { readNumber } from './number-words.js';
import type { DateReader } from './spoken-date.js';

export type { Choice };

/** An answer's value: a text, a number, or the values of the choices picked. */
export type AnswerValue = string | number | string[];

/** What a question wants for its answer; `check`: the tool's own rules (a format, say). */
export type Wanted = (
  | { type: 'text'; minLength?: number; maxLength?: number; format?: string }
  | { type: 'number' | 'integer'; minimum?: number; maximum?: number }
  | { type: 'choice'; choices: readonly Choice[] }
  /** Any of the choices (a list to tick), as many as the bounds allow. */
  | { type: 'choices'; choices: readonly Choice[]; minItems?: number; maxItems?: number }
) & {
  check?: (value: AnswerValue) => string | undefined;
  /** A plain no leaves it out, even for a text (a form's optional field). */
  optional?: boolean;
  /** What the field holds when left out (the client may offer it). */
  default?: AnswerValue;
};

/** What the client is told of the answer a question wants (`tool_question`'s `answer`). */
export interface WantedAnswer {
  type: 'text' | 'number' | 'integer' | 'choice' | 'choices';
  choices?: string[];
  min_items?: number;
  max_items?: number;
  minimum?: number;
  maximum?: number;
  min_length?: number;
  max_length?: number;
  format?: string;
  /** A form's optional field: `null` (or a plain no) leaves it out. */
  optional?: true;
  /** What a form's field holds when left out (its server's default). */
  default?: AnswerValue;
}

export type Read = { value: AnswerValue } | { error: string };

export function wantedAnswer(wanted: Wanted): WantedAnswer {
  return {
    ...wantedKind(wanted),
    ...(wanted.optional && { optional: true }),
    ...(wanted.default !== undefined && { default: titled(wanted.default, wanted) }),
  };
}

/** A value as the user knows it: a choice's title rather than what the tool gets. */
export function titled(value: AnswerValue, wanted: Wanted): AnswerValue {
  if (wanted.type !== 'choice' && wanted.type !== 'choices') return value;
  const title = (v: string | number) => wanted.choices.find((c) => c.value === v)?.title ?? v;
  return Array.isArray(value) ? value.map((v) => String(title(v))) : title(value);
}

function wantedKind(wanted: Wanted): WantedAnswer {
  switch (wanted.type) {
    case 'choice':
      return { type: 'choice', choices: wanted.choices.map((c) => c.title) };
    case 'choices':
      return {
        type: 'choices',
        choices: wanted.choices.map((c) => c.title),
        ...(wanted.minItems !== undefined && { min_items: wanted.minItems }),
        ...(wanted.maxItems !== undefined && { max_items: wanted.maxItems }),
      };
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

/**
 * An email address as speech-to-text writes one said aloud ("ada at example dot com", "ada
 * chiocciola example punto it"), in `language` or English.
 */
function spokenEmail(text: string, language: string): string {
  if (text.includes('@')) return text.replace(/\s+/g, '');
  const { at, dot } = answerWords(language);
  const word = (words: readonly string[]) => new RegExp(`\\s+(?:${words.join('|')})\\s+`, 'g');
  return fold(text).replace(word(at), '@').replace(word(dot), '.').replace(/\s+/g, '');
}

/**
 * The answer in what the user said or typed in `language` (or English), or why it does not
 * answer the question; `dates` writes a date said aloud in the format a text question wants.
 */
export function readAnswer(
  said: string,
  wanted: Wanted,
  dates?: DateReader,
  language = 'en',
): Read {
  const text = said.trim();
  switch (wanted.type) {
    case 'choice':
      return checked(readChoice(text, wanted.choices, language), wanted);
    case 'choices':
      return checked(readChoices(text, wanted.choices, language), wanted);
    case 'text': {
      // Speech-to-text ends a sentence with a full stop the answer does not have.
      const answer = text.replace(/^["'“]+|["'”]+$/g, '').replace(/[.!?。]+$/u, '');
      const { format } = wanted;
      if (format === 'email') return checked({ value: spokenEmail(answer, language) }, wanted);
      const read = checked({ value: answer }, wanted);
      // "March 3rd 1990" for a date: written as the format asks, when it is not already.
      const date = 'error' in read && format && dates?.(answer, format);
      return date ? checked({ value: date }, wanted) : read;
    }
    case 'number':
    case 'integer': {
      const number = readNumber(text, language);
      if (number === undefined) return { error: `"${text}" has no number in it` };
      return checked({ value: number }, wanted);
    }
  }
}

/**
 * The value the client gave (`tool_answer`), or why it does not answer the question: a choice's
 * title or value, a text, a number (or its digits).
 */
export function givenAnswer(value: AnswerValue, wanted: Wanted): Read {
  if (wanted.type === 'choice' || wanted.type === 'choices') {
    const pick = (v: string | number) =>
      wanted.choices.find(
        (c) => c.title === v || c.value === v || plain(c.title) === plain(String(v)),
      );
    const titles = wanted.choices.map((c) => JSON.stringify(c.title)).join(', ');
    const given = Array.isArray(value) ? value : [value];
    const picked = given.map(pick);
    if (picked.some((c) => !c) || (wanted.type === 'choice' && Array.isArray(value)))
      return {
        error: `the answer must be ${wanted.type === 'choice' ? 'one' : 'a list'} of ${titles}`,
      };
    const values = picked.map((c) => c!.value);
    if (wanted.type === 'choice') return checked({ value: values[0]! }, wanted);
    return checked(
      { value: wanted.choices.map((c) => c.value).filter((v) => values.includes(v)) },
      wanted,
    );
  }
  if (Array.isArray(value)) return { error: 'the answer must be one value, not a list' };
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

function bounds(value: AnswerValue, wanted: Wanted): string | undefined {
  if (wanted.type === 'choices' && Array.isArray(value)) {
    if (wanted.minItems !== undefined && value.length < wanted.minItems)
      return `pick at least ${wanted.minItems}`;
    if (wanted.maxItems !== undefined && value.length > wanted.maxItems)
      return `pick at most ${wanted.maxItems}`;
  }
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
