/** Waits between attempts of a request that failed transiently: LLM requests and tool requests. */

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
  plan: { attempt: number; baseMs: number; capMs: number; retryAfterMs?: number },
  random = Math.random,
): number {
  const backoff = plan.baseMs * 2 ** (plan.attempt - 1) * (0.75 + random() * 0.5);
  return Math.round(Math.min(plan.capMs, plan.retryAfterMs ?? backoff));
}
