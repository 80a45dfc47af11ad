/**
 * A conversation's time limit (its `max_secs`, or SESSION_MAX_SECS), counted from its first
 * connection (a resumed session's too): when its time is up, the turn in progress ends first (cut
 * if it takes longer than the grace), no other turn starts, the agent says its goodbye, which no
 * one can cut, and the session ends, not to be resumed. Pure: no Nest import.
 */
import type { SessionLimit } from '../config/env.js';
import { sessionPhrase } from './session-phrases.js';
import { TIME_LIMIT } from './close-codes.js';
import type { Session } from './session.js';

/** When a conversation's time limit ends it, and how long before that its model is told. */
export interface Deadline {
  at: number;
  noticeSecs: number;
}

/**
 * What the model is told in the system message once the conversation's end is near (from
 * SESSION_MAX_NOTICE_SECS before it), so that it brings it to a close rather than be cut; '' before.
 * The same words throughout, so that the system message stays the same from request to request.
 */
export function deadlineNotice(deadline: Deadline | undefined, now: number): string {
  if (!deadline || deadline.noticeSecs === 0 || deadline.at - now > deadline.noticeSecs * 1000)
    return '';
  const secs = deadline.noticeSecs;
  const [n, unit] = secs % 60 === 0 ? [secs / 60, 'minute'] : [secs, 'second'];
  const left = `${n} ${unit}${n === 1 ? '' : 's'}`;
  return `This conversation reaches its time limit in less than ${left}, and then ends: bring it to a close briefly, and start nothing that takes long.`;
}

export interface TimeLimitActions {
  /** Says the goodbye as the session's last turn. */
  sayLast: (text: string) => void;
  /** The time is up (a silent user is no longer asked whether they are there). */
  up: () => void;
  /** Closes the connection with `code`; `forget`: the session cannot be resumed. */
  hangUp: (code: number, reason: string, forget: boolean) => void;
  log: (line: string) => void;
}

export class TimeLimit {
  /** `due`: the time is up, the turn in progress ends first; `saying`: the goodbye is said. */
  private state: 'counting' | 'due' | 'saying' | 'over' = 'counting';
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly session: Session,
    private readonly limit: SessionLimit,
    private readonly actions: TimeLimitActions,
  ) {}

  /**
   * Counts the conversation's time, from its start: once its connection is open (resumed or not),
   * and again when the session's `max_secs` changes.
   */
  start(): void {
    if (this.state !== 'counting') return;
    clearTimeout(this.timer);
    const secs = this.secs;
    const at = this.session.startedAt + secs * 1000;
    this.session.deadline = secs === 0 ? undefined : { at, noticeSecs: this.limit.noticeSecs };
    if (secs === 0) return;
    this.timer = setTimeout(() => this.up(), Math.max(0, at - Date.now()));
  }

  /** The session's own limit (`max_secs`), or SESSION_MAX_SECS; 0: none. */
  private get secs(): number {
    return this.session.settings.max_secs ?? this.limit.secs;
  }

  /** The time is up: no turn starts but the goodbye. */
  get reached(): boolean {
    return this.state !== 'counting';
  }

  /** A turn is over: true when the time limit takes it from here (a goodbye, or the end). */
  turnEnded(): boolean {
    if (this.state === 'saying') this.end();
    else if (this.state === 'due') this.goodbye();
    return this.state !== 'counting';
  }

  close(): void {
    clearTimeout(this.timer);
  }

  private up(): void {
    this.state = 'due';
    this.actions.up();
    this.actions.log(
      `the conversation reached its time limit of ${this.secs} s: it ends (session_id=${this.session.id})`,
    );
    if (!this.session.busy) return this.goodbye();
    // The turn in progress ends first: at most the grace later, it is cut.
    this.timer = setTimeout(() => void this.session.cancel(), this.limit.graceMs);
  }

  private goodbye(): void {
    clearTimeout(this.timer);
    this.state = 'saying';
    const text = sessionPhrase(this.session, 'time_limit_goodbye', this.limit.goodbyes);
    if (!text) return this.end();
    this.actions.sayLast(text);
    // A goodbye that does not end (or was never begun) does not keep the session open.
    this.timer = setTimeout(() => this.end(), this.limit.graceMs);
  }

  private end(): void {
    clearTimeout(this.timer);
    if (this.state === 'over') return;
    this.state = 'over';
    this.actions.hangUp(TIME_LIMIT, 'session time limit', true);
  }
}
