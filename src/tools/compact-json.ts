/**
 * A tool result that is JSON, without the whitespace between its tokens. MCP servers (FastMCP's
 * `indent=2`, the reference servers' `JSON.stringify(…, null, 2)`) and many APIs indent what they
 * answer: a fifth to a half of it is spaces and line breaks the model reads as tokens, and that
 * `result_max_chars` counts. Pure: no Nest import.
 */

const WHITESPACE = new Set([0x20, 0x0a, 0x0d, 0x09]);

/**
 * `text` without whitespace outside its strings when it is one JSON object or array; the very
 * text otherwise. Numbers, strings and key order are left exactly as written (nothing is parsed
 * into values and written again: an id of 20 digits stays as it is).
 */
export function compactJson(text: string): string {
  let start = 0;
  while (start < text.length && WHITESPACE.has(text.charCodeAt(start))) start++;
  const first = text[start];
  if (first !== '{' && first !== '[') return text;
  try {
    JSON.parse(text);
  } catch {
    return text;
  }
  const parts: string[] = [];
  let from = start;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c)
        i++; // a backslash: the next character is escaped
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (WHITESPACE.has(code)) {
      if (i > from) parts.push(text.slice(from, i));
      from = i + 1;
    }
  }
  if (from < text.length) parts.push(text.slice(from));
  const compact = parts.join('');
  return compact.length === text.length ? text : compact;
}
