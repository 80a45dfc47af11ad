import { isNetworkError, isTransientStatus } from './transient-fault.js';

describe('what is sent again', () => {
  it('treats timeouts, conflicts, rate limits and server errors as transient, not refusals', () => {
    expect([408, 409, 429, 500, 502, 503, 504].every(isTransientStatus)).toBe(true);
    expect([400, 401, 403, 404, 413, 422].some(isTransientStatus)).toBe(false);
  });

  it('sends again after a connection that was refused, reset, cut or not made in time, not after a name that does not resolve', () => {
    // Refused, reset or cut, unreachable, not made in time (Node's and undici's codes), a DNS
    // answer that did not come.
    const transient =
      'ECONNREFUSED ECONNRESET EPIPE ETIMEDOUT EHOSTUNREACH ENETUNREACH EAI_AGAIN UND_ERR_SOCKET UND_ERR_CONNECT_TIMEOUT'.split(
        ' ',
      );
    for (const code of transient) {
      expect(isNetworkError(Object.assign(new Error(code), { code }))).toBe(true);
      expect(isNetworkError(new TypeError('fetch failed', { cause: { code } }))).toBe(true);
    }
    for (const code of ['ENOTFOUND', 'ERR_INVALID_URL', 'CERT_HAS_EXPIRED', undefined])
      expect(isNetworkError(Object.assign(new Error('x'), { code }))).toBe(false);
    expect(isNetworkError(undefined)).toBe(false);
  });
});
