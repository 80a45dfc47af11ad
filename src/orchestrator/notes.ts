/**
 * Notes a client adds to the conversation (`note`): what the application knows and the user did
 * not say (a payment that went through, the page the user is looking at, a record just found).
 * The model reads each as a user message of its own, marked as not the user's words; chat
 * templates that take a system message only first (Gemma's, Mistral's) would refuse one later
 * on. A note waits while a turn writes the history, and goes in before the next one.
 */
import type { ChatMessage } from '../llm/llm.types.js';
import type { ErrorCode } from './protocol/error-codes.js';

/**
 * How every user message the engine writes for the model opens (notes, background results): not
 * the user's words, and not shown as theirs (see seen-history.ts).
 */
export const NOT_THE_USERS = '[Not said by the user: ';

/** Whether `message` holds what the user said or typed (not a message the engine wrote them). */
export function saidByUser(message: ChatMessage): boolean {
  return message.role === 'user' && !message.content.startsWith(NOT_THE_USERS);
}

const NOTE_OPENING = `${NOT_THE_USERS}a note from the application the conversation runs in`;

const ACT_NOW = 'Act on it now: say what it means for the user, if anything.';
const KEEP_IN_MIND = 'Keep it in mind: it asks for no answer of its own.';

/** The message that brings the model a note; `respond`: a turn of its own answers it. */
export function noteMessage(text: string, respond: boolean): string {
  return `${NOTE_OPENING}. ${respond ? ACT_NOW : KEEP_IN_MIND}]\n${text}`;
}

/** A note's message read back (a report's history): its text and `respond`; undefined for another. */
export function noteIn(content: string): { text: string; respond: boolean } | undefined {
  if (!content.startsWith(NOTE_OPENING)) return undefined;
  const cut = content.indexOf(']\n');
  if (cut === -1) return undefined;
  return { text: content.slice(cut + 2), respond: content.slice(0, cut).includes(ACT_NOW) };
}

/** Why a note was not added: an `error` event's code and message. */
export interface Refusal {
  code: ErrorCode;
  message: string;
}

export const refusal = (code: ErrorCode, why: string): Refusal => ({
  code,
  message: `${why}; nothing was added`,
});

/** Notes waiting for the turn in progress to end: at most this many. */
export const MAX_WAITING_NOTES = 20;

/** The notes of a session that are not in its history yet. */
export class Notes {
  private readonly waiting: { message: string; respond: boolean }[] = [];

  get size(): number {
    return this.waiting.length;
  }

  get full(): boolean {
    return this.waiting.length >= MAX_WAITING_NOTES;
  }

  /** One of them asks for a turn of its own. */
  get answerWanted(): boolean {
    return this.waiting.some((note) => note.respond);
  }

  add(text: string, respond: boolean): void {
    this.waiting.push({ message: noteMessage(text, respond), respond });
  }

  /** Their messages, in the order they came; none waits any more. */
  take(): string[] {
    return this.waiting.splice(0).map((note) => note.message);
  }
}
