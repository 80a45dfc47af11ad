/**
 * Whether a request that failed may pass when sent again: its server was overloaded, restarting
 * or unreachable (LLM, speech servers). Pure: no Nest import.
 */
import { EgressProxyError } from './egress-error.js';

/** The statuses that the OpenAI SDKs retry too: timeout, conflict, rate limit, server errors. */
export function isTransientStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** Error codes of a server that is unreachable, restarting, or dropped the connection. */
const NETWORK_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** The connection failed, or was dropped (the error's code or its cause's: fetch wraps it). */
export function isNetworkError(error: unknown): boolean {
  if (error instanceof EgressProxyError) return error.unreachable;
  const e = error as { code?: string; cause?: { code?: string } } | undefined;
  return NETWORK_ERRORS.has(e?.code ?? '') || NETWORK_ERRORS.has(e?.cause?.code ?? '');
}
