/**
 * Lets waiting work go in arrival order, a slice of the event loop's time at a time.
 *
 * Work started from I/O callbacks runs back to back: when hundreds of clients start a turn at the
 * same moment, their frames arrive in one poll of the event loop and every turn start (parse,
 * validation, history, the LLM request) would run before any other I/O is looked at again,
 * holding back the tokens of every answer already streaming by the sum of them. Paced, the work
 * let go in one turn of the loop stops after `sliceMs` (the piece running then runs to its end),
 * and the I/O that arrived meanwhile (the tokens) is handled before the rest. Cheap work (audio
 * frames, pings) still goes many at a time; an idle engine pays one `setImmediate` hop.
 */
export class Pacer {
  private readonly waiting: (() => void)[] = [];
  private scheduled = false;

  /** @param sliceMs how long the work let go in one turn of the loop may run (0.5 ms: one or two turn starts) */
  constructor(private readonly sliceMs = 0.5) {}

  /** Settles in a later turn of the event loop, after everything that called it before. */
  next(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      if (!this.scheduled) this.schedule();
    });
  }

  private schedule(): void {
    this.scheduled = true;
    setImmediate(() => {
      const until = performance.now() + this.sliceMs;
      // The next one is let go once the last has run as far as it can without I/O: a tick queued
      // from a microtask that follows its first reaction runs when the microtask queue is empty,
      // after every step of its promise chain that did not wait for I/O (a turn start's parse,
      // history and LLM request), so the clock sees all of its work. Past the slice, the rest wait
      // for an immediate queued from here, which runs in the next turn of the loop, after its poll.
      const step = (): void => {
        this.waiting.shift()?.();
        if (this.waiting.length === 0) this.scheduled = false;
        else queueMicrotask(() => process.nextTick(next));
      };
      const next = (): void => {
        if (performance.now() < until) step();
        else this.schedule();
      };
      step();
    });
  }
}
