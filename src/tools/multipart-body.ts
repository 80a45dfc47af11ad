/**
 * The arguments as a `multipart/form-data` body of text fields (a tool whose Content-Type says
 * so: many APIs take messages, searches and notes as a form of that type, without any file).
 * Pure: no Nest import.
 */
import { createHash, randomUUID } from 'node:crypto';
import { argumentText } from './argument-text.js';
import { wholeCharacters } from '../common/whole-characters.js';

export const MULTIPART_TYPE = /^\s*multipart\/form-data\s*(;|$)/i;

/** A field name as a form writes it in its Content-Disposition (WHATWG's escapes). */
const fieldName = (name: string) => name.replace(/\r\n|\r|\n/g, '%0D%0A').replace(/"/g, '%22');

/**
 * The body and its Content-Type (with the boundary): each argument a text field, an array of
 * values repeating its name, an object (or an array's objects) as JSON text in a part typed
 * `application/json`, as OpenAPI writes an object's property of a multipart body; null as empty.
 */
export function multipartBody(
  args: Record<string, unknown>,
  type = 'multipart/form-data',
): { body: string; contentType: string } {
  // The same fields make the same body (a cached result's key holds it); a boundary found in
  // them, however unlikely, is made anew.
  const text = JSON.stringify(args);
  const digest = createHash('sha256').update(text).digest('hex').slice(0, 32);
  const boundary = `----engine-${text.includes(digest) ? randomUUID() : digest}`;
  const parts: string[] = [];
  const add = (name: string, value: unknown, json = false) => {
    const typed = json ? '\r\nContent-Type: application/json' : '';
    parts.push(
      `--${boundary}\r\nContent-Disposition: form-data; name="${fieldName(name)}"${typed}\r\n\r\n${
        json ? JSON.stringify(value, wholeCharacters) : value === null ? '' : argumentText(value)
      }\r\n`,
    );
  };
  for (const [name, value] of Object.entries(args)) {
    if (value === undefined) continue;
    const items = Array.isArray(value) ? value : [value];
    for (const item of items) add(name, item, typeof item === 'object' && item !== null);
  }
  const base = type.replace(/;\s*boundary=[^;]*/i, '').trim();
  return {
    body: `${parts.join('')}--${boundary}--\r\n`,
    contentType: `${base}; boundary=${boundary}`,
  };
}
