// How a tool's HTTP request is sent, and how it failed.

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
