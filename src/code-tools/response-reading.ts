/** What `ces_requests` reads of a response: its text, bounded, and the cookies it sets. */
import type { IncomingMessage } from 'node:http';
import { pipeline, type Readable, Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { readLimited } from '../common/response-body.js';
import { decodeBody, isTextBody } from '../tools/response-text.js';

/** The content codings a response is decoded from (what `ACCEPTED_ENCODINGS` asks for). */
const DECODERS: Record<string, () => Transform> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/** The Accept-Encoding sent unless the code names one: what is decoded. */
export const ACCEPTED_ENCODINGS = 'gzip, deflate, br';

/** A body whose Content-Encoding could not be decoded (requests' ContentDecodingError). */
export class DecodingError extends Error {}

/**
 * The decoders for a Content-Encoding (`gzip`, `br`, a list applied in turn), the last applied
 * first; none for a coding not known, which leaves the body as sent, as requests leaves it.
 */
function decodersOf(header: string | undefined): Transform[] {
  const codings = (header ?? '')
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
  if (codings.some((coding) => !Object.hasOwn(DECODERS, coding))) return [];
  return codings.reverse().map((coding) => DECODERS[coding]!());
}

/** zlib's own errors (a body that is not what its coding says), not the connection's. */
const isZlibError = (error: unknown) => {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^(Z_|ERR__ERROR|ERR_BROTLI)/.test(code);
};

/**
 * The body as sent, decoded from its Content-Encoding when `decode` (as requests decodes it:
 * urllib does not), read to `limit` bytes at most: a small body that decodes to a large one (a
 * "zip bomb") is read to the limit, like any other.
 */
async function readDecoded(
  response: IncomingMessage,
  limit: number,
  decode: boolean,
): Promise<Buffer> {
  const decoders = decode ? decodersOf(response.headers['content-encoding']) : [];
  if (decoders.length === 0) return (await readLimited(response, limit)).bytes;
  let sent = 0;
  const counted = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      sent += chunk.length;
      done(null, chunk);
    },
  });
  const decoded = pipeline([response, counted, ...decoders], () => {}) as unknown as Readable;
  try {
    return (await readLimited(decoded, limit)).bytes;
  } catch (error) {
    if (!isZlibError(error)) throw error;
    // An empty body (a HEAD's, a 204's) with a coding named: empty, as requests reads it.
    if (sent === 0) return Buffer.alloc(0);
    const coding = response.headers['content-encoding'];
    throw new DecodingError(
      `Received response with content-encoding: ${coding}, but failed to decode it.`,
    );
  }
}

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
 * The response's text (decoded from its Content-Encoding unless not `decode`, then by its
 * charset), read to `limit` bytes at most; its bytes too, in
 * base64, unless they are the text's UTF-8 (a body that is not text, an image or a PDF; one in
 * another charset, or with a byte order mark), for `content` to be them as requests has it.
 */
export async function readBody(
  response: IncomingMessage,
  limit: number,
  decode = true,
): Promise<{ text: string; content_b64?: string }> {
  const bytes = await readDecoded(response, limit, decode);
  const type = response.headers['content-type'];
  const text = decodeBody(bytes, type);
  return isTextBody(bytes, type) && Buffer.from(text).equals(bytes)
    ? { text }
    : { text, content_b64: bytes.toString('base64') };
}
