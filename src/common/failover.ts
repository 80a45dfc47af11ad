/**
 * A server with another behind it: after it fails, it is left alone for a while (every request
 * would otherwise wait out its retries, or its timeout, before going to the other), then tried
 * again with the next request. Pure: no Nest import.
 */
export interface FailoverEvents {
  /** The server failed (`why`): the other serves until it is tried again. */
  fellBack: (why: string) => void;
  /** The server served again after failing. */
  recovered: () => void;
}

/** How long a server that failed is left alone. */
export const FAILOVER_PAUSE_MS = 30_000;

export class Failover {
  /** Until when (performance.now()) the server is left alone. */
  private pausedUntil = 0;
  private failing = false;

  constructor(
    private readonly events: FailoverEvents,
    private readonly pauseMs = FAILOVER_PAUSE_MS,
  ) {}

  /** Whether the server is to be asked now. */
  get tryServer(): boolean {
    return performance.now() >= this.pausedUntil;
  }

  /** The server served. */
  served(): void {
    if (!this.failing) return;
    this.failing = false;
    this.events.recovered();
  }

  /** The server failed (`error`): it is left alone for the pause. */
  failed(error: unknown): void {
    this.pausedUntil = performance.now() + this.pauseMs;
    this.failing = true;
    this.events.fellBack((error as Error).message);
  }
}
