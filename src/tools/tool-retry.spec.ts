import { backendDown, toolRetryDelay, type RetryPlan } from './tool-retry.js';

describe('toolRetryDelay', () => {
  const plan = (fields: Partial<RetryPlan> = {}): RetryPlan => ({
    safe: true,
    explicit: false,
    attempt: 1,
    baseMs: 200,
    capMs: 15_000,
    ...fields,
  });

  it('retries a refused connection whatever the method: the request never arrived', () => {
    for (const safe of [true, false]) {
      const delay = toolRetryDelay({ code: 'ECONNREFUSED', timedOut: false }, plan({ safe }));
      expect(delay).toBeGreaterThanOrEqual(150);
      expect(delay).toBeLessThanOrEqual(250);
    }
    expect(
      toolRetryDelay({ code: 'EAI_AGAIN', timedOut: false }, plan({ safe: false })),
    ).toBeDefined();
  });

  it('retries drops and 429, 502, 503, 504 only for safe tools, or when the tool says so', () => {
    const dropped = (code: string) => ({ code, timedOut: false });
    for (const failure of [
      dropped('ECONNRESET'),
      dropped('EPIPE'),
      dropped('EHOSTUNREACH'),
      dropped('ENETUNREACH'),
      { status: 503 },
      { status: 429 },
      { status: 502 },
      { status: 504 },
    ]) {
      expect(toolRetryDelay(failure, plan({ safe: true }))).toBeDefined();
      expect(toolRetryDelay(failure, plan({ safe: false }))).toBeUndefined();
      expect(toolRetryDelay(failure, plan({ safe: false }))).toBeUndefined();
      expect(toolRetryDelay(failure, plan({ safe: false, explicit: true }))).toBeDefined();
    }
  });

  it('does not retry what another attempt would not change', () => {
    for (const status of [200, 400, 401, 404, 409, 422, 500])
      expect(toolRetryDelay({ status }, plan())).toBeUndefined();
    expect(toolRetryDelay({ code: 'ECONNABORTED', timedOut: true }, plan())).toBeUndefined();
    // A timeout whose socket was then torn down: the tool's time is spent all the same.
    expect(toolRetryDelay({ code: 'ECONNRESET', timedOut: true }, plan())).toBeUndefined();
    expect(toolRetryDelay({ code: 'ECONNREFUSED', timedOut: true }, plan())).toBeUndefined();
    expect(toolRetryDelay({ code: undefined, timedOut: false }, plan())).toBeUndefined();
    expect(
      toolRetryDelay({ code: 'ERR_FR_TOO_MANY_REDIRECTS', timedOut: false }, plan()),
    ).toBeUndefined();
  });

  it('waits what Retry-After says, unless it is longer than the tool’s timeout', () => {
    expect(toolRetryDelay({ status: 503, retryAfter: '2' }, plan())).toBe(2000);
    expect(toolRetryDelay({ status: 429, retryAfter: '0' }, plan())).toBe(0);
    expect(toolRetryDelay({ status: 503, retryAfter: '60' }, plan())).toBeUndefined();
  });

  it('doubles the wait for each further attempt', () => {
    const delay = toolRetryDelay({ status: 503 }, plan({ attempt: 3 }))!;
    expect(delay).toBeGreaterThanOrEqual(600);
    expect(delay).toBeLessThanOrEqual(1000);
  });
});

describe('backendDown', () => {
  const live = { signal: new AbortController().signal };
  it('counts a timeout, an unreachable backend and HTTP 5xx', () => {
    expect(backendDown({ code: undefined, timedOut: true }, live)).toBe(true);
    expect(backendDown({ code: 'ECONNREFUSED', timedOut: false }, live)).toBe(true);
    expect(backendDown({ status: 500 }, live)).toBe(true);
    expect(backendDown({ status: 503 }, live)).toBe(true);
  });

  it('does not count an answer below 500, or a call its turn cut short', () => {
    expect(backendDown({ status: 499 }, live)).toBe(false);
    expect(backendDown({ status: 404 }, live)).toBe(false);
    expect(backendDown({ code: undefined, timedOut: false }, live)).toBe(false);
    const cut = new AbortController();
    cut.abort();
    expect(backendDown({ code: 'ECONNRESET', timedOut: false }, { signal: cut.signal })).toBe(
      false,
    );
  });
});
