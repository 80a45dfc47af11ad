/**
 * Why an LLM request failed, and whether sending it again is worth it. Pure: no Nest import.
 */
export class StreamFault extends Error {
  constructor(
    message: string,
    readonly status?: number,
    /**
     * A new, identical request is likely to succeed: the server was overloaded, restarting or
     * unreachable (HTTP 408, 409, 429, 5xx; a refused or reset connection; a stream cut off).
     * Not a timeout (the user has already waited that long), nor an error the server wrote into
     * the stream, nor a request the server refused.
     */
    readonly transient = false,
    /** The server's `Retry-After`, in ms, when it sent one. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/** The statuses that the OpenAI SDKs retry too: timeout, conflict, rate limit, server errors. */
export function isTransientStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** A `Retry-After` header (seconds, or an HTTP date) in ms; undefined when absent or unreadable. */
export function retryAfterMs(header: string | undefined, now = Date.now()): number | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const value = header.trim();
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * The wait before retry `attempt` (1 for the first): the server's `Retry-After` when it gave one,
 * else `baseMs` doubled each time with ±25% jitter (so that sessions cut off together do not all
 * come back at once); never more than `capMs`.
 */
export function retryDelayMs(
  attempt: number,
  baseMs: number,
  capMs: number,
  fault: StreamFault,
  random = Math.random,
): number {
  const backoff = baseMs * 2 ** (attempt - 1) * (0.75 + random() * 0.5);
  return Math.round(Math.min(capMs, fault.retryAfterMs ?? backoff));
}

/**
 * Aborts when a phase (connect + first byte, then each gap between chunks) takes too long.
 * Re-arming only moves a deadline; one timer checks it, so a busy stream costs no timer churn.
 */
export class Watchdog {
  private timer: NodeJS.Timeout | undefined;
  private deadline = 0;
  private phase = '';
  constructor(
    private readonly controller: AbortController,
    private readonly ms: number,
  ) {}
  arm(phase: string): void {
    this.phase = phase;
    this.deadline = performance.now() + this.ms;
    this.timer ??= setTimeout(() => this.check(), this.ms);
  }
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
  private check(): void {
    const left = this.deadline - performance.now();
    if (left > 1) {
      this.timer = setTimeout(() => this.check(), left);
      return;
    }
    this.timer = undefined;
    this.controller.abort(
      new StreamFault(`LLM server timed out (${this.phase}, ${this.ms / 1000}s)`),
    );
  }
}
