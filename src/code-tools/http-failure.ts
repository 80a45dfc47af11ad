/** How a `ces_requests` request failed, as the exception it raises. Pure: no Nest import. */
import { BlockedAddressError } from '../tools/address-guard.js';
import { EgressProxyError } from '../common/egress.js';
import {
  connectionErrorCode,
  CUT_OFF,
  cutOff,
  untrustedCertificate,
} from '../common/connection-error.js';
import { DecodingError } from './response-reading.js';

/**
 * How a request failed, for the exception `ces_requests` raises (as Python's requests does):
 * `Timeout` (`ConnectTimeout` before the connection was made, `ReadTimeout` after),
 * `ConnectionError` (`SSLError` for a certificate refused; a refused address too),
 * `TooManyRedirects`, `InvalidURL`, `ContentDecodingError`.
 */
export type HttpFailureKind =
  | 'connect_timeout'
  | 'read_timeout'
  | 'connection'
  | 'ssl'
  | 'refused'
  | 'redirects'
  | 'invalid_url'
  | 'decoding';

export class HttpFailure extends Error {
  constructor(
    message: string,
    readonly kind: HttpFailureKind,
  ) {
    super(message);
  }
}

/** `error` as the failure `ces_requests` raises; an error of no known kind as it is. */
export function failureOf(
  error: unknown,
  { timedOut, connected }: { timedOut: boolean; connected: boolean },
): Error {
  if (error instanceof HttpFailure) return error;
  if (error instanceof BlockedAddressError) return new HttpFailure(error.message, 'refused');
  if (error instanceof EgressProxyError) return new HttpFailure(error.message, 'connection');
  if (error instanceof DecodingError) return new HttpFailure(error.message, 'decoding');
  if (timedOut) return new HttpFailure('timed out', connected ? 'read_timeout' : 'connect_timeout');
  const certificate = untrustedCertificate(error);
  if (certificate)
    return new HttpFailure(`the server's TLS certificate is not trusted (${certificate})`, 'ssl');
  if (cutOff(error)) return new HttpFailure(CUT_OFF, 'connection');
  if (connectionErrorCode(error)) return new HttpFailure((error as Error).message, 'connection');
  // Node's HTTP parser refused the answer (a status line, a header or a chunk that is not HTTP):
  // requests raises ConnectionError for it (urllib3's ProtocolError, 'Connection aborted.').
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && code.startsWith('HPE_'))
    return new HttpFailure(
      `the server's answer is not valid HTTP (${(error as Error).message})`,
      'connection',
    );
  return error as Error;
}
