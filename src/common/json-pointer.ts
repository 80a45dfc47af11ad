/** Local JSON pointers (`#/$defs/Guest`) as JSON Schema's `$ref`s write them. Pure: no Nest import. */

export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** One token of a pointer written in a URI fragment, decoded; undefined when it cannot be. */
export function pointerToken(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
  } catch {
    return undefined; // a stray `%`
  }
}

/** What a local `$ref` (`#`, `#/…` JSON pointer) points to in `document`, if anything. */
export function pointed(document: unknown, ref: string): unknown {
  if (ref === '#') return document;
  if (!ref.startsWith('#/')) return undefined;
  let node = document;
  for (const raw of ref.slice(2).split('/')) {
    const key = pointerToken(raw);
    if (key === undefined || typeof node !== 'object' || node === null) return undefined;
    if (!Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}
