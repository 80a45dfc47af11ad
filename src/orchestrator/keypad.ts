/**
 * Keys pressed on the caller's phone (DTMF), gathered into entries as an IVR reads them: an entry
 * ends with `#`, or when no key follows for a while (an account number typed, then a pause).
 * Pure: no Nest import.
 */
import { answerApprovalsByKeys, keyOf } from './approvals.js';
import { answerQuestion, tellWaiting } from './questions.js';
import type { ConfirmKeys } from '../config/env-values.js';
import type { ServerEvent } from './protocol/server-events.js';
import type { Session } from './session.js';

export class Keypad {
  private keys = '';
  private timer: NodeJS.Timeout | undefined;

  /**
   * @param timeoutMs the pause after the last key that ends an entry
   * @param entered called with each entry (its `#` included)
   */
  constructor(
    private readonly timeoutMs: () => number,
    private readonly entered: (keys: string) => void,
  ) {}

  /** Whether keys are gathered for an entry not yet ended. */
  get typing(): boolean {
    return this.keys !== '';
  }

  /** Keys pressed, one or more, in order. */
  press(digits: string): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const key of digits) {
      this.keys += key;
      if (key === '#') this.end();
    }
    if (this.keys !== '') this.timer = setTimeout(() => this.end(), this.timeoutMs());
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
    this.keypad = new Keypad(deps.timeoutMs, (keys) => deps.enqueue(() => this.entered(keys)));
  }

  async press(digits: string): Promise<void> {
    const { approvals, questions } = this.session;
    if (!this.keypad.typing && approvals.size === 0 && questions.size === 0)
      await this.deps.bargeIn();
    this.keypad.press(digits);
  }

  close(): void {
    this.keypad.close();
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
