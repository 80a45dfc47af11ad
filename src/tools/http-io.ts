// How a tool's HTTP request is sent, and how it failed.

import { BlockedAddressError } from './address-guard.js';
import { EgressProxyError } from '../common/egress.js';
import { invalidRedirect, TOO_MANY_REDIRECTS } from '../common/redirects.js';
import {
  connectionErrorCode,
  CUT_OFF,
  cutOff,
  untrustedCertificate,
} from '../common/connection-error.js';

/** The tool's timeout ended the request (axios's and the abort signal's ways of saying it). */
export function timedOut(error: unknown): boolean {
  const err = error as { code?: string; name?: string };
  return (
    err.name === 'TimeoutError' ||
    err.code === 'ECONNABORTED' ||
    err.code === 'ETIMEDOUT' ||
    err.name === 'CanceledError'
  );
}

/** The network error code of a failed request; a body cut off by the server counts as a reset. */
export function errorCode(error: unknown): string | undefined {
  const err = error as { code?: string; message?: string; cause?: { code?: string } };
  return err.code ?? err.cause?.code ?? (err.message === 'aborted' ? 'ECONNRESET' : undefined);
}

/** `headers` with axios told to send no Content-Type (`false`), unless one is set. */
export function withoutContentType(
  headers: Record<string, string>,
): Record<string, string | false> {
  if (Object.keys(headers).some((k) => k.toLowerCase() === 'content-type')) return headers;
  return { ...headers, 'Content-Type': false };
}

/**
 * What the model reads of a request that failed: the turn's cancel, a refused address, the
 * timeout, a redirect or certificate fault, a connection's error code; never the backend's address.
 */
export function failureText(error: unknown, outer: AbortSignal, timeoutSecs: number): string {
  if (outer.aborted) return 'cancelled';
  const err = error as { code?: string; message?: string; name?: string; cause?: unknown };
  // A refused address or the egress proxy's failure, even when the redirect follower wrapped it: said as it is.
  for (let e: unknown = error; e instanceof Error; e = e.cause)
    if (e instanceof BlockedAddressError || e instanceof EgressProxyError) return e.message;
  if (timedOut(error)) return `timed out after ${timeoutSecs}s`;
  if (err.code === 'ERR_FR_TOO_MANY_REDIRECTS') return TOO_MANY_REDIRECTS;
  // A Location that is no URL: Node's TypeError, under follow-redirects' error, under axios'.
  type Link = { code?: string; input?: unknown; cause?: unknown } | undefined;
  if (err.code === 'ERR_FR_REDIRECTION_FAILURE')
    for (let e = err.cause as Link; e; e = e.cause as Link)
      if (e.code === 'ERR_INVALID_URL') return invalidRedirect(String(e.input));
  if (cutOff(error)) return CUT_OFF;
  const certificate = untrustedCertificate(error);
  if (certificate)
    return `the TLS certificate of the tool's server is not trusted (${certificate})`;
  // A connection that failed, by its code: the backend's address is nothing the model can use,
  // and it could repeat it to the user.
  const code = connectionErrorCode(error);
  if (code) return `cannot reach the tool's server (${code})`;
  // zlib's and brotli's codes: a body that says gzip, deflate or br and is not.
  if (typeof err.code === 'string' && /^(?:Z_|ERR__ERROR_)/.test(err.code))
    return `the response's body is not what its Content-Encoding says (${err.message})`;
  return err.message || String(error);
}
