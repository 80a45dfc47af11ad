/** What `ces_requests` reads of a response: its text, bounded, and the cookies it sets. */
import type { IncomingMessage } from 'node:http';
import { decodeBody } from '../tools/response-text.js';

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

/** The response's text (decoded by its charset), read to `limit` bytes at most. */
export async function readText(response: IncomingMessage, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response) {
    const buf = chunk as Buffer;
    chunks.push(buf.subarray(0, Math.max(0, limit - size)));
    size += buf.length;
    if (size >= limit) {
      response.destroy();
      break;
    }
  }
  return decodeBody(Buffer.concat(chunks), response.headers['content-type']);
}
