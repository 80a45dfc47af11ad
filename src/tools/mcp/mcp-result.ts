/** What the model reads of an MCP tool's result. Pure: no Nest import. */
import { MAX_JSON_DEPTH, nestedDeeper } from '../../common/nesting.js';
import { decodeBody, isTextBody } from '../response-text.js';

/** One item of a `tools/call` result's `content` (MCP 2025-06-18), as far as the engine reads it. */
export interface McpContent {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  resource?: { uri?: string; text?: string; blob?: string; mimeType?: string };
}

export interface McpCallResult {
  content?: McpContent[];
  structuredContent?: unknown;
  isError?: boolean;
}

/** Bytes of a base64 payload, without decoding it. */
function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

/** A note for content that is not text, as HTTP tools note a binary body. */
function binaryNote(mimeType: string | undefined, data: string | undefined): string {
  return `(${mimeType || 'application/octet-stream'}, ${base64Bytes(data ?? '')} bytes, not text)`;
}

/**
 * A resource's base64 `blob` as text when its declared type is text (a CSV, JSON, a page: servers
 * send files as blobs whatever they hold), in the charset the type names.
 */
function blobText(blob: string | undefined, mimeType: string | undefined): string | undefined {
  if (blob === undefined || !mimeType) return undefined;
  const bytes = Buffer.from(blob, 'base64');
  return isTextBody(bytes, mimeType) ? decodeBody(bytes, mimeType) : undefined;
}

function itemText(item: McpContent): string {
  switch (item.type) {
    case 'text':
      return item.text ?? '';
    case 'image':
    case 'audio':
      return binaryNote(item.mimeType, item.data);
    case 'resource': {
      const r = item.resource ?? {};
      return r.text ?? blobText(r.blob, r.mimeType) ?? binaryNote(r.mimeType, r.blob);
    }
    case 'resource_link':
      return `${item.name ? `${item.name}: ` : ''}${item.uri ?? ''}`;
    default:
      return `(${item.type} content)`;
  }
}

/**
 * The text of a `tools/call` result: its content items, one per line (text as it is; images,
 * audio and binary resources as a note of type and size; links as their URI), or its
 * `structuredContent` as JSON when it has no content. A resource blob of a text type is its text. `isError` results are errors the tool
 * reported: the model reads them as `Error: …`.
 */
export function mcpResultText(result: McpCallResult): { ok: boolean; text: string } {
  const items = Array.isArray(result.content) ? result.content : [];
  let text = items.map(itemText).join('\n');
  const structured = result.structuredContent;
  if (items.length === 0 && structured !== undefined) {
    // Too deep to write as JSON (a walk that deep overflows the stack): read as a failure.
    if (nestedDeeper(structured, MAX_JSON_DEPTH))
      return {
        ok: false,
        text: `Error: the tool's structured result is nested more than ${MAX_JSON_DEPTH} levels deep`,
      };
    text = JSON.stringify(structured);
  }
  if (result.isError === true) return { ok: false, text: `Error: ${text || 'the tool failed'}` };
  return { ok: true, text: text === '' ? '(empty result)' : text };
}
