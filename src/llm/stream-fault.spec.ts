import { isTransientStatus, retryAfterMs, retryDelayMs, StreamFault } from './stream-fault.js';

describe('retry policy', () => {
  it('treats timeouts, conflicts, rate limits and server errors as transient, not refusals', () => {
    expect([408, 409, 429, 500, 502, 503, 504].every(isTransientStatus)).toBe(true);
    expect([400, 401, 403, 404, 413, 422].some(isTransientStatus)).toBe(false);
  });

  it('calls a fault retryable when a new request may succeed: transient, or timed out', () => {
    expect(new StreamFault('overloaded', { status: 503, transient: true }).retryable).toBe(true);
    expect(new StreamFault('timed out', { timedOut: true }).retryable).toBe(true);
    expect(new StreamFault('refused', { status: 400 }).retryable).toBe(false);
    expect(new StreamFault('LLM server error: context too long').retryable).toBe(false);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-30T10:00:00Z');
    expect(retryAfterMs('2', now)).toBe(2000);
    expect(retryAfterMs(' 0.5 ', now)).toBe(500);
    expect(retryAfterMs('Mon, 30 Nov 2026 10:00:03 GMT', now)).toBe(3000);
    expect(retryAfterMs('Mon, 30 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(undefined, now)).toBeUndefined();
  });

  it('doubles the backoff per attempt within ±25% jitter, prefers Retry-After, never beyond the cap', () => {
    for (const random of [0, 0.5, 0.999]) {
      for (const attempt of [1, 2, 3]) {
        const delay = retryDelayMs({ attempt, baseMs: 100, capMs: 60_000 }, () => random);
        expect(delay).toBeGreaterThanOrEqual(0.75 * 100 * 2 ** (attempt - 1));
        expect(delay).toBeLessThanOrEqual(1.25 * 100 * 2 ** (attempt - 1));
      }
    }
    expect(retryDelayMs({ attempt: 1, baseMs: 100, capMs: 60_000, retryAfterMs: 7000 })).toBe(7000);
    expect(retryDelayMs({ attempt: 1, baseMs: 100, capMs: 5000, retryAfterMs: 7000 })).toBe(5000);
    expect(retryDelayMs({ attempt: 10, baseMs: 100, capMs: 5000 })).toBe(5000);
  });
});
