/**
 * The start-up check of an LLM server named without LLM_MODEL: the `GET /models` the first turn
 * would make is made at start-up instead (the same one request, its answer kept), so that a wrong
 * address or key is in the log before the first caller meets it. Only warnings: a server that is
 * down now may be up by the first turn. Pure: no Nest import.
 */
import { StreamFault } from './stream-fault.js';

/** The warning for what kept `GET {baseUrl}/models` from giving a model. */
export function modelsProblem(error: unknown, baseUrl: string): string {
  const at = `the LLM server at ${baseUrl}`;
  if (error instanceof StreamFault && error.status !== undefined) {
    if (error.status === 401 || error.status === 403)
      return `${at} refused the engine's credentials (HTTP ${error.status} to GET /models): check LLM_API_KEY or LLM_EXTRA_HEADERS`;
    return `${at} answered HTTP ${error.status} to GET /models, and LLM_MODEL is empty: set LLM_MODEL`;
  }
  if (error instanceof StreamFault)
    return `${at} lists no model, and LLM_MODEL is empty: set LLM_MODEL`;
  return `${at} cannot be reached (${unreachableReason(error)}): turns fail until it answers`;
}

/** Why a request did not reach the server, in a few words (`ECONNREFUSED`, `timed out`). */
export function unreachableReason(error: unknown): string {
  const err = error as {
    name?: string;
    message?: string;
    cause?: { code?: string; message?: string };
  };
  if (err?.name === 'TimeoutError') return 'timed out';
  return err?.cause?.code ?? err?.cause?.message ?? err?.message ?? String(error);
}

/** `promise`, or the signal's reason as soon as it is aborted (a wait shared with other callers). */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
