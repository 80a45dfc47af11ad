/**
 * Turns that come while the agent says what may not be cut (`say` with "interruptible": false):
 * they wait for its end (the user's words were heard and transcribed meanwhile), then begin as
 * they would have, in the order they came, before anything after them. Pure: no Nest import.
 */
import type { Session } from './session.js';

export class AfterNotice {
  private waiting: (() => Promise<void>)[] | undefined;

  constructor(
    private readonly session: Session,
    /** Runs a task after the messages received before it (the conversation's inbox). */
    private readonly enqueue: (task: () => Promise<void>) => Promise<void>,
  ) {}

  /** Queues `begin` while a notice plays or turns wait for one; false: it may begin now. */
  defer(begin: () => Promise<void>): boolean {
    if (!this.session.firmTurn && !this.waiting) return false;
    if (!this.waiting) {
      const waiting: (() => Promise<void>)[] = [];
      this.waiting = waiting;
      void this.session.idle().then(() =>
        this.enqueue(async () => {
          this.waiting = undefined;
          for (const next of waiting) await next();
        }),
      );
    }
    this.waiting.push(begin);
    return true;
  }
}
