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

/** The body as text; for content that is not text, a note of its type and size (`binary`). */
export function responseText({ bytes, contentType, cut }: ToolBody): {
  text: string;
  binary: boolean;
} {
  const [mime = '', ...params] = (contentType ?? '').split(';').map((p) => p.trim());
  const type = mime.toLowerCase();
  const charset = params
    .map((p) => /^charset\s*=\s*"?([^";]+)"?$/i.exec(p)?.[1])
    .find((c) => c !== undefined);
  if (!isText(type, bytes)) {
    const size = `${cut ? 'at least ' : ''}${bytes.length} bytes`;
    return { text: `${type || 'application/octet-stream'}, ${size}, not text`, binary: true };
  }
  return { text: decode(bytes, charset), binary: false };
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

function decode(bytes: Buffer, charset: string | undefined): string {
  if (charset && !/^utf-?8$/i.test(charset)) {
    try {
      return new TextDecoder(charset).decode(bytes);
    } catch {
      // An unknown label: read as UTF-8, as when none is given.
    }
  }
  return new TextDecoder().decode(bytes);
}
