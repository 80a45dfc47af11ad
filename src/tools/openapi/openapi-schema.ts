/**
 * An OpenAPI schema as the JSON Schema a tool's `parameters` hold. OpenAPI 3.0's schemas are
 * draft 4's in part: `exclusiveMaximum: true` beside `maximum` where JSON Schema since draft 6
 * writes `exclusiveMaximum: <number>` (refused as invalid otherwise). Pure: no Nest import.
 */
import { mapSubschemas } from '../schema-walk.js';
import type { JsonSchema } from '../tool-definition.js';

/**
 * `schema` in JSON Schema's terms: a boolean `exclusiveMaximum`/`exclusiveMinimum` becomes the
 * number form (the bound it marks exclusive), and an `enum` listing a value twice lists it once
 * (a slip Ajv refuses), at any depth. What needs no change is returned as it is.
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
