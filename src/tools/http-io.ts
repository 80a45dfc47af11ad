// How a tool's HTTP request failed, and reading its response within a limit.
import type { Readable } from 'node:stream';

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

/** Reads at most `limit` bytes of a body, then stops reading (never buffers more). */
export async function readLimited(
  stream: Readable,
  limit: number,
  signal: AbortSignal,
): Promise<{ bytes: Buffer; cut: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  const onAbort = () => stream.destroy(new Error('aborted'));
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    for await (const chunk of stream) {
      const buf = chunk as Buffer;
      const take = Math.min(buf.length, limit - size);
      chunks.push(take === buf.length ? buf : buf.subarray(0, take));
      size += take;
      if (size >= limit) break;
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
    stream.destroy();
  }
  if (signal.aborted) throw signal.reason ?? new Error('aborted');
  return { bytes: Buffer.concat(chunks), cut: size >= limit };
}
