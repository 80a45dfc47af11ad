import { retryAfterMs, retryDelayMs } from '../common/retry.js';
import type { ToolInvocation } from './tool-executor.js';

/** Failures after which the request never reached the backend: retried whatever the method. */
const NEVER_SENT = new Set(['ECONNREFUSED', 'EAI_AGAIN']);

/**
 * A connection error `code` after which the request never reached its server: those retried
 * (NEVER_SENT), and a name that does not resolve (not retried: it will not resolve in a moment).
 */
export function neverSentCode(code: string | undefined): boolean {
  return code !== undefined && (NEVER_SENT.has(code) || code === 'ENOTFOUND');
}
/** A connection dropped or unreachable on the way: the backend may have seen the request. */
const DROPPED = new Set(['ECONNRESET', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH']);
/** Overloaded, restarting, or a gateway that could not reach it. */
const TRANSIENT_STATUSES = new Set([429, 502, 503, 504]);

/** How one attempt of a tool request ended, as far as retrying goes. */
export type AttemptFailure =
  { status: number; retryAfter?: string } | { code: string | undefined; timedOut: boolean };

export interface RetryPlan {
  /** The tool's requests change nothing (`isSafe`): dropped connections and overloads are retried. */
  safe: boolean;
  /** The tool set `retries` itself: its backend takes the request twice safely, whatever the method. */
  explicit: boolean;
  /** 1 for the first retry. */
  attempt: number;
  baseMs: number;
  /** A wait longer than this (the tool's timeout) is not worth it in a conversation. */
  capMs: number;
}

/**
 * The wait before retrying a tool request that failed as `failure`, or undefined when it must
 * not be retried. A refused connection (the backend restarting, a rolling deploy) is retried for
 * any method: the request never arrived. A dropped connection and 429, 502, 503, 504 only for
 * a tool whose requests change nothing (GET, HEAD, OPTIONS, TRACE, or `"safe": true`), or when
 * the tool says its backend takes a request twice safely (`retries`). A timeout is not retried (the tool's time is spent), nor a
 * `Retry-After` longer than the cap.
 */
export function toolRetryDelay(failure: AttemptFailure, plan: RetryPlan): number | undefined {
  const repeatable = plan.explicit || plan.safe;
  let retryAfter: number | undefined;
  if ('status' in failure) {
    if (!TRANSIENT_STATUSES.has(failure.status) || !repeatable) return undefined;
    retryAfter = retryAfterMs(failure.retryAfter);
    if (retryAfter !== undefined && retryAfter > plan.capMs) return undefined;
  } else {
    if (failure.timedOut || failure.code === undefined) return undefined;
    if (!NEVER_SENT.has(failure.code) && !(repeatable && DROPPED.has(failure.code)))
      return undefined;
  }
  return retryDelayMs({ ...plan, retryAfterMs: retryAfter });
}

/** The attempt never reached the backend, or the backend refused it (4xx): it did nothing. */
export function notActed(failure: AttemptFailure): boolean {
  return 'status' in failure
    ? failure.status >= 400 && failure.status < 500
    : neverSentCode(failure.code);
}

/** The call's last attempt found the backend down: timed out, unreachable, or an HTTP 5xx. */
export function backendDown(
  failure: AttemptFailure,
  call: Pick<ToolInvocation, 'signal'>,
): boolean {
  if (call.signal.aborted) return false;
  return 'status' in failure
    ? failure.status >= 500
    : failure.timedOut || failure.code !== undefined;
}
