/**
 * A request to a speech server (a transcription, a synthesis) sent again after a transient
 * failure: the server restarting or overloaded. Pure: no Nest import.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { retryAfterMs, retryDelayMs } from '../common/retry.js';
import { isNetworkError, isTransientStatus } from '../common/transient-fault.js';

/** The first wait before a new attempt (doubled each time, jittered), and the longest. */
const BASE_MS = 200;
const CAP_MS = 2000;

/**
 * The response of `send` (a new request each call), sent again up to `retries` times
 * (SPEECH_RETRIES) after a refused or dropped connection or HTTP 408, 409, 429, 5xx, 200 ms later
 * doubled each time (or after the server's `Retry-After`, 2 s at most): a caller's words are
 * transcribed, and the agent's sentences said, through a speech server's restart rather than
 * lost. Never after a timeout (the caller has waited long enough) nor once `signal` aborts (the
 * wait rejects then). `retried` hears why each new attempt is made.
 */
export async function sendWithRetries(
  send: () => Promise<Response>,
  retries: number,
  signal: AbortSignal,
  retried: (why: string, attempt: number, delayMs: number) => void = () => {},
): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    let response: Response;
    try {
      response = await send();
    } catch (error) {
      if (attempt > retries || signal.aborted || !isNetworkError(error)) throw error;
      await pause(attempt, undefined, signal, (delay) => retried('no connection', attempt, delay));
      continue;
    }
    if (response.ok || attempt > retries || !isTransientStatus(response.status)) return response;
    const after = retryAfterMs(response.headers.get('retry-after') ?? undefined);
    await response.body?.cancel();
    const why = `HTTP ${response.status}`;
    await pause(attempt, after, signal, (delay) => retried(why, attempt, delay));
  }
}

/** What `sendWithRetries` logs of each new attempt at `server` (a warning: the server failed). */
export function retryWarning(
  logger: { warn: (line: string) => void },
  server: string,
  retries: number,
): (why: string, attempt: number, delayMs: number) => void {
  return (why, n, ms) =>
    logger.warn(`${server} failed (${why}): retry ${n} of ${retries} in ${ms} ms (SPEECH_RETRIES)`);
}

async function pause(
  attempt: number,
  after: number | undefined,
  signal: AbortSignal,
  told: (delayMs: number) => void,
): Promise<void> {
  const delay = retryDelayMs({ attempt, baseMs: BASE_MS, capMs: CAP_MS, retryAfterMs: after });
  told(delay);
  await sleep(delay, undefined, { signal });
}
