/**
 * A request's signal with its timeout. Pure: no Nest import.
 */

/** Where the signal returned holds its timeout's signal. */
const TIMEOUT = Symbol('timeout');

/**
 * `signal`, aborted too once `ms` have passed (with a TimeoutError, as `AbortSignal.timeout`'s):
 * `AbortSignal.any([signal, AbortSignal.timeout(ms)])`, whose result holds the timeout's signal.
 * On Node 20 a composite signal holds its sources weakly, and a timeout's timer holds its signal
 * weakly too, so a garbage collection during the request took the timeout away: a server that
 * took the request and never answered held it for ever (nodejs/node#57736; Node 22 keeps them).
 * Whoever holds the signal returned (the HTTP client, while the request runs) now holds both.
 */
export function withTimeout(signal: AbortSignal, ms: number): AbortSignal {
  const timeout = AbortSignal.timeout(ms);
  const both = AbortSignal.any([signal, timeout]);
  Object.defineProperty(both, TIMEOUT, { value: timeout });
  return both;
}
