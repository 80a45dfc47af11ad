/**
 * Lets waiting work go one piece per turn of the event loop, in arrival order.
 *
 * Work started from I/O callbacks runs back to back: when hundreds of clients start a turn at the
 * same moment, their frames arrive in one poll of the event loop and every turn start (parse,
 * validation, history, the LLM request) would run before any other I/O is looked at again,
 * holding back the tokens of every answer already streaming by the sum of them. Paced, each
 * piece waits for a turn of the loop of its own, so the I/O that arrived meanwhile (the tokens)
 * is handled between two pieces. An idle engine pays one `setImmediate` hop.
 */
export class Pacer {
  private readonly waiting: (() => void)[] = [];
  private scheduled = false;

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
      this.scheduled = false;
      // The one let go runs up to its first await (and the reactions that follow at once)
      // before this callback's turn ends; the next immediate, queued from here, waits for the
      // next turn of the loop, after its poll for I/O.
      this.waiting.shift()?.();
      if (this.waiting.length > 0) this.schedule();
    });
  }
}
