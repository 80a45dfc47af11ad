/**
 * A call's time (its tool's `timeout_secs`), which stands still while it waits for the
 * user's answer to a question (an MCP server's elicitation, a code tool's `context.confirm`): the
 * user's thinking is not the tool's slowness.
 * Pure: no Nest import.
 */
/** How long a call's questions to its user may hold it, at most, beyond its own time. */
const QUESTIONS_MS = 60 * 60_000;

export class CallDeadline {
  private readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private left: number;
  private since = 0;
  private paused = 0;
  private running = false;

  /** `reason`: what the call's request is aborted with when the time is over. */
  constructor(
    readonly ms: number,
    private readonly reason: () => unknown,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.left = ms;
  }

  /**
   * A timer to back the deadline up with (the SDK's own, say): the call's time, and the longest
   * its questions to its user may hold it.
   */
  get backstopMs(): number {
    return this.ms + QUESTIONS_MS;
  }

  /** Aborted when the time is over. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The request goes out: its whole time from now (again, for a request made again). */
  start(): void {
    this.clear();
    this.left = this.ms;
    this.running = true;
    if (this.paused === 0) this.arm();
  }

  /** A question is asked: the time stands still until every question asked is answered. */
  pause(): void {
    if (this.paused++ > 0 || !this.running) return;
    clearTimeout(this.timer);
    this.left -= this.now() - this.since;
  }

  resume(): void {
    if (this.paused === 0 || --this.paused > 0 || !this.running) return;
    this.arm();
  }

  /** The request has ended. */
  clear(): void {
    clearTimeout(this.timer);
    this.running = false;
  }

  /** `ask`, with the time standing still while it waits. */
  pausing<A extends unknown[], T>(ask: (...args: A) => Promise<T>): (...args: A) => Promise<T> {
    return async (...args) => {
      this.pause();
      try {
        return await ask(...args);
      } finally {
        this.resume();
      }
    };
  }

  private arm(): void {
    this.since = this.now();
    this.timer = setTimeout(() => this.controller.abort(this.reason()), Math.max(0, this.left));
  }
}
