/** Reading a body to a limit: the rest of a larger one is never read. Pure: no Nest import. */
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';

/** The size of an error page kept to quote from it. */
export const ERROR_BODY_BYTES = 64 * 1024;

/**
 * Reads at most `limit` bytes of a body, then stops reading (never buffers more) and lets the
 * stream go. `cut`: the limit was reached. `signal` ends the read with its reason.
 */
export async function readLimited(
  stream: Readable,
  limit: number,
  signal?: AbortSignal,
): Promise<{ bytes: Buffer; cut: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  const onAbort = () => stream.destroy(new Error('aborted'));
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    for await (const chunk of stream) {
      const buf = chunk as Buffer;
      const take = Math.min(buf.length, limit - size);
      chunks.push(take === buf.length ? buf : buf.subarray(0, take));
      size += take;
      if (size >= limit) break;
    }
  } catch (error) {
    // Ended by `signal`: said with its reason (a TimeoutError), not the stream's 'aborted'.
    throw signal?.aborted ? (signal.reason ?? error) : error;
  } finally {
    signal?.removeEventListener('abort', onAbort);
    stream.destroy();
  }
  if (signal?.aborted) throw signal.reason ?? new Error('aborted');
  return { bytes: Buffer.concat(chunks), cut: size >= limit };
}

/**
 * A fetch Response's text (UTF-8), at most `limit` bytes of it, and whether there was more: then
 * the rest is not read, and the connection is let go. A server that sends without end (a
 * misconfigured URL, a broken proxy) costs the engine `limit` bytes, not its timeout's worth.
 * `signal` (the request's, with its timeout) ends the read: fetch's own abort of a body does not
 * always reach it (a compressed body cut off, read after some requests, waited for ever).
 */
export async function boundedText(
  response: Response,
  limit: number,
  signal?: AbortSignal,
): Promise<{ text: string; more: boolean }> {
  if (!response.body) return { text: '', more: false };
  const body = Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
  const { bytes, cut } = await readLimited(body, limit + 1, signal);
  return { text: new TextDecoder().decode(bytes.subarray(0, limit)), more: cut };
}
