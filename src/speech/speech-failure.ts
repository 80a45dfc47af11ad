import { connectionErrorCode, untrustedCertificate } from '../common/connection-error.js';

/**
 * Why a request to a speech server failed, in words an operator can act on: fetch's own say
 * "fetch failed", "terminated" or "This operation was aborted". The client reads it too: the
 * server's address is left out. Pure: no Nest import.
 */
export function speechFailure(
  error: unknown,
  server: { name: string; timeoutSetting: string; timeoutSecs: number },
): Error {
  const err = error as {
    name?: string;
    message?: string;
    cause?: { code?: string; message?: string; name?: string };
  };
  // The request's timeout: fetch's TimeoutError, or a stream's AbortError it caused.
  if (
    err?.name === 'TimeoutError' ||
    (err?.name === 'AbortError' && err.cause?.name === 'TimeoutError')
  )
    return new Error(
      `the ${server.name} did not answer within ${server.timeoutSetting} (${server.timeoutSecs}s)`,
    );
  const certificate = untrustedCertificate(error);
  if (certificate)
    return new Error(`the TLS certificate of the ${server.name} is not trusted (${certificate})`);
  // fetch's own cause when it has no system code (an undici timeout, a port it refuses).
  const why =
    connectionErrorCode(error) ??
    (err?.message === 'fetch failed' ? (err.cause?.code ?? err.cause?.message) : undefined);
  if (why) return new Error(`cannot reach the ${server.name} (${why})`);
  // fetch's word for an answer that broke off while it was read, its cause the why.
  if (err?.message === 'terminated') {
    const cause = err.cause;
    if (typeof cause?.code === 'string' && /^(?:Z_|ERR__ERROR_)/.test(cause.code))
      return new Error(
        `the ${server.name}'s answer is not what its Content-Encoding says (${cause.message})`,
      );
    return new Error(
      `the ${server.name} broke off its answer${cause?.message ? ` (${cause.message})` : ''}`,
    );
  }
  return error instanceof Error ? error : new Error(String(error));
}
