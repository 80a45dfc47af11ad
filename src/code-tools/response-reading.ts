/** What `ces_requests` reads of a response: its text, bounded, and the cookies it sets. */
import type { IncomingMessage } from 'node:http';
import { readLimited } from '../common/response-body.js';
import { decodeBody, isTextBody } from '../tools/response-text.js';

/** The cookies `Set-Cookie` headers set: the name and value before each one's attributes. */
export function cookiesSet(headers: readonly string[]): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const header of headers) {
    const pair = header.split(';', 1)[0]!;
    const equals = pair.indexOf('=');
    if (equals > 0) cookies[pair.slice(0, equals).trim()] = pair.slice(equals + 1).trim();
  }
  return cookies;
}

/**
 * The response's text (decoded by its charset), read to `limit` bytes at most; its bytes too, in
 * base64, unless they are the text's UTF-8 (a body that is not text, an image or a PDF; one in
 * another charset, or with a byte order mark), for `content` to be them as requests has it.
 */
export async function readBody(
  response: IncomingMessage,
  limit: number,
): Promise<{ text: string; content_b64?: string }> {
  const { bytes } = await readLimited(response, limit);
  const type = response.headers['content-type'];
  const text = decodeBody(bytes, type);
  return isTextBody(bytes, type) && Buffer.from(text).equals(bytes)
    ? { text }
    : { text, content_b64: bytes.toString('base64') };
}
