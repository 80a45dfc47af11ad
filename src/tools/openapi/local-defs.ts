/**
 * The `$ref`s that dereferencing a document leaves — the recursive ones: a category holding its
 * subcategories, a comment its replies — made local to a tool's parameters, which the model is
 * given alone: each schema they point to in the document is copied under the parameters'
 * `$defs` (by its name, `Category`) and the refs point there, refs inside those too. Pure: no
 * Nest import.
 */
import { isObject, MAX_HOPS, pointed } from '../schema-shape.js';
import type { JsonSchema } from '../tool-definition.js';
import type { RequestBody } from './openapi-body.js';

/**
 * The most a tool's parameters may make as JSON text when an operation's schemas make them: 256
 * KiB, eight times Stripe's largest (29 KB). DocuSign's envelope, its shared schemas written out
 * wherever they are used, makes 44 MB: no model should be given that, and compiling its check
 * took minutes.
 */
export const MAX_PARAMETERS_CHARS = 256 * 1024;

/** Whether `value` written as JSON is longer than `chars`, found without writing it. */
export function largerThan(value: unknown, chars: number): boolean {
  return jsonLength(value, chars) > chars;
}

/** About how long `value` is written as JSON, found without writing it: past `limit`, limit + 1. */
function jsonLength(value: unknown, limit: number): number {
  let left = limit;
  const walk = (node: unknown): boolean => {
    if (typeof node === 'string') return (left -= node.length + 2) < 0;
    if (typeof node !== 'object' || node === null) return (left -= String(node).length) < 0;
    left -= 2;
    if (Array.isArray(node)) return node.some((item) => (left -= 1) < 0 || walk(item));
    return Object.entries(node).some(([key, inner]) => (left -= key.length + 4) < 0 || walk(inner));
  };
  return walk(value) ? limit + 1 : limit - left;
}

/**
 * `schema` with each `#/…` `$ref` it holds pointing into its own `$defs`, where the schema it
 * pointed to in `document` is copied; `unresolved`, the first ref that points elsewhere (another
 * file, a URL) or nowhere; `tooLarge` when the copies would make more than MAX_PARAMETERS_CHARS.
 */
export function withLocalDefs(
  schema: JsonSchema,
  document: unknown,
): { schema: JsonSchema; unresolved?: string; tooLarge?: true } {
  const names = new Map<string, string>();
  const taken = new Set<string>();
  const waiting: string[] = [];
  let unresolved: string | undefined;
  const nameOf = (ref: string) => {
    let name = names.get(ref);
    if (name === undefined) {
      const last = ref.split('/').pop()!.replaceAll('~1', '/').replaceAll('~0', '~');
      const base = decodeURIComponent(last).replace(/[^A-Za-z0-9_.-]/g, '_') || 'schema';
      name = base;
      for (let i = 2; taken.has(name); i++) name = `${base}_${i}`;
      taken.add(name);
      names.set(ref, name);
      waiting.push(ref);
    }
    return name;
  };
  const local = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(local);
    if (!isObject(value)) return value;
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      const ref = key === '$ref' && typeof inner === 'string' ? inner : undefined;
      if (ref === undefined || ref.startsWith('#/$defs/')) out[key] = local(inner);
      else if (ref.startsWith('#/') && isObject(pointed(document, ref)))
        out[key] = `#/$defs/${nameOf(ref)}`;
      else {
        unresolved ??= ref;
        out[key] = inner;
      }
    }
    return out;
  };
  const made = local(schema) as JsonSchema;
  const defs: Record<string, unknown> = {};
  let copied = 0;
  for (let ref = waiting.shift(); ref !== undefined; ref = waiting.shift()) {
    const target = pointed(document, ref);
    const size = jsonLength(target, MAX_PARAMETERS_CHARS - copied);
    if (size > MAX_PARAMETERS_CHARS - copied) return { schema, tooLarge: true };
    defs[names.get(ref)!] = local(target);
    copied += size;
  }
  if (names.size === 0) return { schema, ...(unresolved !== undefined && { unresolved }) };
  return {
    schema: { ...made, $defs: { ...(made.$defs as object), ...defs } },
    ...(unresolved !== undefined && { unresolved }),
  };
}

/**
 * `schema` with the `$ref`s at its top, and at the top of its `allOf`/`oneOf`/`anyOf` members,
 * followed into `document` (siblings of a ref kept over its target's): what a request body's
 * arguments are read from, when the body is itself a recursive schema (`Node`).
 */
function withTopRefsFollowed(schema: unknown, document: unknown, depth = 0): unknown {
  if (!isObject(schema) || depth > MAX_HOPS) return schema;
  let current = schema;
  for (let hop = 0; hop < MAX_HOPS; hop++) {
    const ref = current.$ref;
    const target =
      typeof ref === 'string' && ref.startsWith('#/') ? pointed(document, ref) : undefined;
    if (!isObject(target)) break;
    const siblings = Object.fromEntries(Object.entries(current).filter(([k]) => k !== '$ref'));
    current = { ...target, ...siblings };
  }
  const out = { ...current };
  for (const key of ['allOf', 'oneOf', 'anyOf'])
    if (Array.isArray(out[key]))
      out[key] = out[key].map((member) => withTopRefsFollowed(member, document, depth + 1));
  return out;
}

/** A request body whose schemas' top `$ref`s, left by dereferencing (recursive), are followed. */
export function bodyRefsFollowed(
  body: RequestBody | undefined,
  spec: unknown,
): RequestBody | undefined {
  if (!body?.content) return body;
  const content = Object.fromEntries(
    Object.entries(body.content).map(([type, media]) => [
      type,
      media.schema
        ? { ...media, schema: withTopRefsFollowed(media.schema, spec) as object }
        : media,
    ]),
  );
  return { ...body, content };
}
