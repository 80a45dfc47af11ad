import { TextDecoder } from 'node:util';
import { mediaType } from '../common/http-text.js';
import { isHtml } from './html-text.js';

/**
 * What the model reads of a tool's response body: text decoded in the charset the response
 * declares (a legacy API's ISO-8859-1 or Shift_JIS is not garbled as UTF-8), and for content that
 * is not text (an image, a PDF, a zip) a short note instead of bytes the model cannot use.
 * Pure: no Nest import.
 */

/** Media types that are text whatever their top-level type says. */
const TEXT_TYPES = new Set([
  'application/json',
  'application/xml',
  'application/javascript',
  'application/ecmascript',
  'application/x-www-form-urlencoded',
  'application/yaml',
  'application/x-yaml',
  'application/graphql',
  'application/sql',
  'application/csv',
  'application/x-ndjson',
  'application/problem+json',
]);

export interface ToolBody {
  bytes: Buffer;
  /** The Content-Type header, if any. */
  contentType?: string;
  /** Reading stopped at LLM_TOOL_MAX_RESPONSE_BYTES. */
  cut: boolean;
}

/**
 * The body as text; for content that is not text, a note of its type and size (`binary`). An
 * HTML page (`html`) is its markup, for htmlText to read.
 */
export function responseText({ bytes, contentType, cut }: ToolBody): {
  text: string;
  binary: boolean;
  html: boolean;
} {
  const { type, charset } = mediaType(contentType);
  if (!isText(type, bytes)) {
    const size = `${cut ? 'at least ' : ''}${bytes.length} bytes`;
    const text = `${type || 'application/octet-stream'}, ${size}, not text`;
    return { text, binary: true, html: false };
  }
  return { text: decode(bytes, charset), binary: false, html: isHtml(type) };
}

/** A body as text, in the charset of its `Content-Type` (UTF-8 when none or unknown). */
export function decodeBody(bytes: Buffer, contentType: string | undefined): string {
  return decode(bytes, mediaType(contentType).charset);
}

/** Whether a body of `contentType` is text (its media type, or no NUL byte when none is given). */
export function isTextBody(bytes: Buffer, contentType: string | undefined): boolean {
  return isText(mediaType(contentType).type, bytes);
}

function isText(type: string, bytes: Buffer): boolean {
  if (type === '') return !bytes.subarray(0, 1024).includes(0); // undeclared: NUL bytes mean binary
  return (
    type.startsWith('text/') ||
    TEXT_TYPES.has(type) ||
    type.endsWith('+json') ||
    type.endsWith('+xml')
  );
}

/** windows-1252's characters for bytes 0x80–0x9F (WHATWG index); the rest is Latin-1. */
const CP1252_C1 =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

function decode(bytes: Buffer, charset: string | undefined): string {
  if (charset && !/^utf-?8$/i.test(charset)) {
    let decoder: TextDecoder | undefined;
    try {
      decoder = new TextDecoder(charset);
    } catch {
      // An unknown label: read as UTF-8, as when none is given.
    }
    const text = decoder?.decode(bytes);
    // Node 20 decodes windows-1252 (the encoding of the latin1, iso-8859-1 and ascii labels too)
    // as ISO-8859-1, leaving € and curly quotes as C1 control characters (nodejs/node#60888).
    if (decoder?.encoding === 'windows-1252')
      return text!.replace(/[\u0080-\u009f]/g, (c) => CP1252_C1[c.charCodeAt(0) - 0x80]!);
    if (text !== undefined) return text;
  }
  return new TextDecoder().decode(bytes);
}
