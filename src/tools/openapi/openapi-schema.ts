/**
 * An OpenAPI schema as the JSON Schema a tool's `parameters` hold. OpenAPI 3.0's schemas are
 * draft 4's in part: `exclusiveMaximum: true` beside `maximum` where JSON Schema since draft 6
 * writes `exclusiveMaximum: <number>` (refused as invalid otherwise). Pure: no Nest import.
 */
import { mapSubschemas } from '../schema-walk.js';
import type { JsonSchema } from '../tool-definition.js';

/**
 * `schema` in JSON Schema's terms: a boolean `exclusiveMaximum`/`exclusiveMinimum` becomes the
 * number form (the bound it marks exclusive), an `enum` listing a value twice lists it once (a
 * slip Ajv refuses), and OpenAPI's `x-…` extensions and `xml` are left out, at any depth. What
 * needs no change is returned as it is.
 */
export function toJsonSchema(schema: JsonSchema): JsonSchema {
  const deeper = mapSubschemas(schema, toJsonSchema);
  let out: JsonSchema | undefined;
  const set = (key: string, value: unknown) => {
    out ??= { ...deeper };
    if (value === undefined) delete out[key];
    else out[key] = value;
  };
  for (const [bound, limit] of [
    ['exclusiveMaximum', 'maximum'],
    ['exclusiveMinimum', 'minimum'],
  ] as const) {
    const flag = schema[bound];
    if (typeof flag !== 'boolean') continue;
    const exclusive = flag && typeof schema[limit] === 'number';
    set(bound, exclusive ? schema[limit] : undefined);
    if (exclusive) set(limit, undefined);
  }
  // A vendor's extension (`x-ms-mutability`, `x-go-name`) or XML's naming says nothing to the
  // model, and costs its tokens (a sixth of Files.com's schemas).
  for (const key of Object.keys(schema))
    if (key.startsWith('x-') || key === 'xml') set(key, undefined);
  if (Array.isArray(schema.enum)) {
    const seen = new Set<string>();
    const once = schema.enum.filter((v) => {
      const key = JSON.stringify(v);
      return !seen.has(key) && seen.add(key);
    });
    if (once.length < schema.enum.length) set('enum', once);
  }
  return out ?? deeper;
}

/**
 * A request body's `schema` without its `readOnly` properties, at any depth: OpenAPI's readOnly
 * property (an id, a creation time) "SHOULD NOT be sent as part of the request", and its being
 * required holds for responses only. Offered, the model fills it in, and a server that checks
 * requests refuses it (Jira's components, dashboards, field contexts). The very schema when it
 * has none.
 */
export function withoutReadOnly(schema: JsonSchema): JsonSchema {
  const deeper = mapSubschemas(schema, withoutReadOnly);
  const properties = deeper.properties as Record<string, JsonSchema> | undefined;
  if (!properties || typeof properties !== 'object') return deeper;
  const dropped = new Set(Object.keys(properties).filter((name) => isReadOnly(properties[name])));
  if (dropped.size === 0) return deeper;
  const out: JsonSchema = {
    ...deeper,
    properties: Object.fromEntries(Object.entries(properties).filter(([n]) => !dropped.has(n))),
  };
  if (Array.isArray(deeper.required)) {
    const left = (deeper.required as string[]).filter((name) => !dropped.has(name));
    if (left.length > 0) out.required = left;
    else delete out.required;
  }
  return out;
}

/** A property marked `readOnly`, itself or by a part of its `allOf` (`allOf: [{$ref}, {readOnly}]`). */
function isReadOnly(schema: unknown): boolean {
  if (typeof schema !== 'object' || schema === null) return false;
  const { readOnly, allOf } = schema as { readOnly?: unknown; allOf?: unknown };
  return (
    readOnly === true ||
    (Array.isArray(allOf) &&
      allOf.some((part) => (part as { readOnly?: unknown } | null)?.readOnly === true))
  );
}
