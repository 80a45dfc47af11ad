import { retryAfterMs, retryDelayMs } from './retry.js';

describe('retry waits', () => {
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
