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
