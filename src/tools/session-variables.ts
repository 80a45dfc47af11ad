import { VARIABLE_NAME } from './tool-secrets.js';

export const MAX_VARIABLES = 32;

/**
 * Session variables as a client gives them (`session.update`'s `variables`, or a tool tried over `/api/tools`), or why they cannot be taken: up to 32 names of letters,
 * digits and `_` (1–64), each a string of at most 4000 characters with no line break (a value may
 * go into a header).
 */
export function readVariables(input: Record<string, unknown>): Record<string, string> | string {
  const entries = Object.entries(input);
  if (entries.length > MAX_VARIABLES) return `"variables" holds more than ${MAX_VARIABLES} names`;
  for (const [name, value] of entries) {
    if (!VARIABLE_NAME.test(name))
      return `variable ${JSON.stringify(name)}: a name is 1 to 64 letters, digits or "_"`;
    if (typeof value !== 'string' || value.length > 4000 || /[\r\n\0]/.test(value))
      return `variable '${name}' must be a string of at most 4000 characters, without line breaks`;
  }
  return Object.fromEntries(entries) as Record<string, string>;
}
