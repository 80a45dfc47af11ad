/** A fetch Response's body read to a limit: the rest of a larger one is never read. Pure: no Nest import. */

/** The size of an error page kept to quote from it. */
export const ERROR_BODY_BYTES = 64 * 1024;

/**
 * The body's text (UTF-8), at most `limit` bytes of it, and whether there was more: then the rest
 * is not read, and the connection is let go. A server that sends without end (a misconfigured
 * URL, a broken proxy) costs the engine `limit` bytes, not its timeout's worth of them.
 */
export async function boundedText(
  response: Response,
  limit: number,
): Promise<{ text: string; more: boolean }> {
  const reader = (response.body as ReadableStream<Uint8Array> | null)?.getReader();
  if (!reader) return { text: '', more: false };
  const chunks: Uint8Array[] = [];
  let size = 0;
  let more = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
    if (size > limit) {
      more = true;
      await reader.cancel().catch(() => undefined);
      break;
    }
  }
  return { text: new TextDecoder().decode(Buffer.concat(chunks).subarray(0, limit)), more };
}
