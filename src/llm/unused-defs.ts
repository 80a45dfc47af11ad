/**
 * A tool's schema without the shared schemas (`$defs`, `definitions`) nothing in it refers to.
 * MCP servers generated from one API description often give every tool all of its shared schemas:
 * Notion's server lists 71 KB of schemas for its 24 tools, 48 KB of them `$defs` the tool does not
 * use, sent to the model with every request. Leaving them out changes nothing the schema allows.
 * Pure: no Nest import.
 */

import { isJsonObject, pointerToken } from '../common/json-pointer.js';

type Json = Record<string, unknown>;

const DEFS_KEYS = ['$defs', 'definitions'] as const;
/** Keywords that name or find a schema otherwise than by a local JSON pointer: left alone. */
const OTHER_REFERENCES = new Set([
  '$id',
  '$anchor',
  '$dynamicAnchor',
  '$dynamicRef',
  '$recursiveRef',
  '$recursiveAnchor',
]);
/** `#/$defs/Name…` or `#/definitions/Name…`: the keyword and the (encoded) name. */
const DEF_POINTER = /^#\/(\$defs|definitions)(?:\/([^/]*))?/;

/**
 * Every `$ref` in `value` (any depth), or undefined when `value` uses a way of naming schemas
 * this reading does not follow (an `$id`, an anchor, a dynamic reference).
 */
function refsIn(value: unknown, into: string[]): string[] | undefined {
  if (Array.isArray(value)) {
    for (const item of value) if (!refsIn(item, into)) return undefined;
    return into;
  }
  if (!isJsonObject(value)) return into;
  for (const [key, inner] of Object.entries(value)) {
    if (OTHER_REFERENCES.has(key)) return undefined;
    if (key === '$ref' && typeof inner === 'string') into.push(inner);
    else if (!refsIn(inner, into)) return undefined;
  }
  return into;
}

/**
 * `schema` without the entries of its top-level `$defs` and `definitions` that no `$ref` reaches
 * (from outside them, or from an entry that one reaches); the very object when all are used, or
 * when it cannot tell (a reference to another document, an `$id` or anchor anywhere).
 */
export function withoutUnusedDefs(schema: Json): Json {
  const present = DEFS_KEYS.filter((key) => isJsonObject(schema[key]));
  if (present.length === 0) return schema;
  const outside: Json = { ...schema };
  for (const key of present) delete outside[key];
  const used = new Map<string, Set<string>>(present.map((key) => [key, new Set<string>()]));
  // An anchor or `$id` anywhere (an unused entry's too) may be what a reference names.
  if (!refsIn(schema, [])) return schema;
  const pending = refsIn(outside, [])!;
  while (pending.length > 0) {
    const ref = pending.pop()!;
    // Another document's, or a plain-name fragment (`#node`): not a pointer this can follow.
    if (ref !== '#' && !ref.startsWith('#/')) return schema;
    const match = DEF_POINTER.exec(ref);
    if (!match) continue;
    const [, key, encoded] = match;
    const defs = schema[key!];
    if (!isJsonObject(defs)) continue;
    const name = encoded === undefined ? undefined : pointerToken(encoded);
    // `#/$defs` itself, or a name that cannot be read: everything there may be used.
    if (name === undefined) return schema;
    const names = used.get(key!)!;
    if (names.has(name) || !(name in defs)) continue;
    names.add(name);
    refsIn(defs[name], pending);
  }
  const out: Json = { ...schema };
  let changed = false;
  for (const key of present) {
    const defs = schema[key] as Json;
    const names = used.get(key)!;
    if (names.size === Object.keys(defs).length) continue;
    changed = true;
    if (names.size === 0) delete out[key];
    else out[key] = Object.fromEntries(Object.entries(defs).filter(([name]) => names.has(name)));
  }
  return changed ? out : schema;
}
