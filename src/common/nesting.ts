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
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}
