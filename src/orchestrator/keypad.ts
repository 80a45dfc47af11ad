/**
 * Keys pressed on the caller's phone (DTMF), gathered into entries as an IVR reads them: an entry
 * ends with `#`, or when no key follows for a while (an account number typed, then a pause), or
 * at once when its keys can mean nothing more (`complete`: the yes key while a call awaits
 * approval), the `#` a caller may press after them then dropped. Pure: no Nest import.
 */
import { answerApprovalsByKeys, keyOf } from './approvals.js';
import { answerQuestion, questionAnswered, tellWaiting } from './questions.js';
import type { ConfirmKeys } from '../config/env-values.js';
import type { ServerEvent } from './protocol/server-events.js';
import type { Session } from './session.js';
import type { Wanted } from '../tools/user-question.js';

export class Keypad {
  private keys = '';
  private timer: NodeJS.Timeout | undefined;
  /** When an entry last ended at once (complete), for the `#` that may follow it. */
  private completedAt = -Infinity;

  /**
   * @param timeoutMs the pause after the last key that ends an entry
   * @param entered called with each entry (its `#` included)
   * @param complete whether the keys so far are a whole entry, ended without waiting
   */
  constructor(
    private readonly timeoutMs: () => number,
    private readonly entered: (keys: string) => void,
    private readonly complete: (keys: string) => boolean = () => false,
  ) {}

  /** Whether pressing `digits` starts an entry: none is typed, and they are more than a `#` dropped. */
  starts(digits: string): boolean {
    return this.keys === '' && (digits.length > 1 || !this.closesComplete(digits));
  }

  /** Keys pressed, one or more, in order. */
  press(digits: string): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const key of digits) {
      const dropped = this.closesComplete(key);
      this.completedAt = -Infinity;
      if (dropped) continue;
      this.keys += key;
      if (key === '#') this.end();
      else if (this.complete(this.keys)) {
        this.end();
        this.completedAt = performance.now();
      }
    }
    if (this.keys !== '') this.timer = setTimeout(() => this.end(), this.timeoutMs());
  }

  /** `1#` for a menu's 1: the entry ended at its 1, its `#` (pressed before the pause) ends nothing. */
  private closesComplete(key: string): boolean {
    return (
      key === '#' && this.keys === '' && performance.now() - this.completedAt < this.timeoutMs()
    );
  }

  /** The call is over: keys not yet entered are dropped. */
  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.keys = '';
  }

  private end(): void {
    const keys = this.keys;
    this.close();
    if (keys !== '') this.entered(keys);
  }
}

export interface PhoneKeysDeps {
  /** DTMF_TIMEOUT_MS, read at each key. */
  timeoutMs: () => number;
  /** TOOL_CONFIRM_KEY_YES, TOOL_CONFIRM_KEY_NO and TOOL_CONFIRM_KEY_REPEAT. */
  confirmKeys: ConfirmKeys;
  send: (event: ServerEvent) => void;
  /** Runs `task` in turn with the session's other messages. */
  enqueue: (task: () => Promise<void>) => void;
  /** The user cuts the agent short. */
  bargeIn: () => Promise<void>;
  /** Starts a turn answering the user's `text`. */
  turn: (text: string) => Promise<void>;
}

/**
 * A session's keypad: the first key of an entry is a barge-in, as speech is (unless calls await
 * approval or an answer: the entry may answer them); an entry answers a call's question (its
 * keys, `#` let be), or the calls awaiting approval with the yes or no key, has their questions
 * asked again with the repeat key, or is the user's turn, `DTMF: 1234#`.
 */
export class PhoneKeys {
  private readonly keypad: Keypad;

  constructor(
    private readonly session: Session,
    private readonly deps: PhoneKeysDeps,
  ) {
    this.keypad = new Keypad(
      deps.timeoutMs,
      (keys) => deps.enqueue(() => this.entered(keys)),
      (keys) => this.answersAtOnce(keys),
    );
  }

  async press(digits: string): Promise<void> {
    const { approvals, questions } = this.session;
    if (this.keypad.starts(digits) && approvals.size === 0 && questions.size === 0)
      await this.deps.bargeIn();
    this.keypad.press(digits);
  }

  close(): void {
    this.keypad.close();
  }

  /**
   * A key that can only be the answer asked for is taken without waiting for `#` or the pause: the
   * yes, no or repeat key while calls await approval (and no question waits, whose answer may be
   * longer), or the one key a question's answer can be (oneKeyAnswer).
   */
  private answersAtOnce(keys: string): boolean {
    if (keys.length !== 1) return false;
    const asked = questionAnswered(this.session);
    if (asked) return oneKeyAnswer(asked.wanted, keys);
    const { yes, no, repeat } = this.deps.confirmKeys;
    return this.session.approvals.size > 0 && (keys === yes || keys === no || keys === repeat);
  }

  private async entered(keys: string): Promise<void> {
    const { confirmKeys, send, turn } = this.deps;
    // The repeat key alone (`*`, `*#`): the waiting calls' questions asked again.
    if (keyOf(keys) === confirmKeys.repeat && tellWaiting(this.session, 'again')) return;
    // A question's answer: its number, its choice's place, or the keys as text (an account number).
    if (answerQuestion(this.session, keys.replace(/#$/, ''), () => false)) return;
    if (!answerApprovalsByKeys(this.session, keys, confirmKeys, send)) await turn(`DTMF: ${keys}`);
  }
}

/**
 * Whether `key` alone is the whole answer to `wanted`: a choice's place among at most nine
 * choices (unless one is named with a number: "30" for 30 minutes would read as the third), or a
 * whole number of at most 9 (none of two keys fits).
 */
export function oneKeyAnswer(wanted: Wanted, key: string): boolean {
  if (key < '0' || key > '9') return false;
  if (wanted.type === 'choice')
    return (
      key !== '0' &&
      wanted.choices.length <= 9 &&
      !wanted.choices.some((c) => /\d/.test(c.title + c.value))
    );
  return wanted.type === 'integer' && wanted.maximum !== undefined && wanted.maximum <= 9;
}
