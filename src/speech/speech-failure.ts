import { connectionErrorCode, untrustedCertificate } from '../common/connection-error.js';

/**
 * Why a request to a speech server failed, in words an operator can act on: fetch's own say
 * "fetch failed" or "This operation was aborted". The client reads it too: the server's address
 * is left out. Pure: no Nest import.
 */
export function speechFailure(
  error: unknown,
  server: { name: string; timeoutSetting: string; timeoutSecs: number },
): Error {
  const err = error as {
    name?: string;
    message?: string;
    cause?: { code?: string; message?: string };
  };
  if (err?.name === 'TimeoutError')
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
  return error instanceof Error ? error : new Error(String(error));
}
