/**
 * Levels of arrays and objects the engine takes in a JSON value from outside (a tool definition's
 * field, a call's arguments, a client's result): far past any real one, short of what a recursive
 * walk (JSON text, schema checks, copies) survives.
 */
export const MAX_JSON_DEPTH = 100;

/**
 * Whether a JSON value nests arrays and objects more than `limit` levels deep, found without
 * recursion (a value too deep for a recursive walk is what this guards against).
 */
export function nestedDeeper(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (typeof item !== 'object' || item === null) continue;
    if (depth >= limit) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item))
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * Whether JSON text nests arrays and objects more than `limit` levels deep, read without parsing
 * (brackets inside strings do not count). JSON.parse takes time that grows faster than the depth:
 * 345 ms for a 1 MB frame of nested brackets, against 7 ms for a 1 MB string, all of it the
 * event loop's.
 */
export function textNestedDeeper(text: string, limit: number): boolean {
  // From one character that matters to the next: a long string (a JSON audio frame's base64)
  // is skipped by the regex engine, not walked a character at a time (17 µs for 8.5 KB).
  const marks = /["[\]{}\\]/g;
  let depth = 0;
  let inString = false;
  for (let m = marks.exec(text); m; m = marks.exec(text)) {
    const c = m[0];
    if (inString) {
      if (c === '\\')
        marks.lastIndex++; // a backslash: the next character is escaped
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '[' || c === '{') {
      if (++depth > limit) return true;
    } else if (c === ']' || c === '}') depth--;
  }
  return false;
}
