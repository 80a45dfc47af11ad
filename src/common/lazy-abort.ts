/**
 * An abort for something that may never be waited on: the `AbortController` (and the
 * `DOMException` its abort builds, ~20 µs) is made only once someone takes the signal. A
 * connection has several of these and closes with most of them never used.
 */
export class LazyAbort {
  private controller?: AbortController;
  private done = false;

  get aborted(): boolean {
    return this.done;
  }

  /** The signal, aborted already if `abort` came first. */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.done) this.controller.abort();
    }
    return this.controller.signal;
  }

  abort(): void {
    if (this.done) return;
    this.done = true;
    this.controller?.abort();
  }
}
