/** What flow control needs of a connection (ws's WebSocket). */
export interface Pausable {
  pause(): void;
  resume(): void;
  readonly isPaused: boolean;
}

/**
 * Stops reading a connection while `high` of its messages wait to be handled, until they are
 * down to `low`. Messages of all sessions take turns (Pacer), so a client can send faster than it
 * is answered; paused, TCP holds the rest back at the client (nothing is lost), and the engine
 * holds at most `high` messages of it and what one read of the socket brought.
 */
export class ReadLimit {
  private waiting = 0;

  constructor(
    private readonly socket: Pausable,
    private readonly onPause: () => void,
    private readonly high = 64,
    private readonly low = 16,
  ) {}

  /** A message was received; `handled` settles once it has been. */
  track(handled: Promise<unknown>): void {
    if (++this.waiting === this.high) {
      this.socket.pause();
      this.onPause();
    }
    const done = () => {
      if (--this.waiting === this.low && this.socket.isPaused) this.socket.resume();
    };
    handled.then(done, done);
  }
}
