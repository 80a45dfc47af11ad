/**
 * An OpenAPI schema as the JSON Schema a tool's `parameters` hold. OpenAPI 3.0's schemas are
 * draft 4's in part: `exclusiveMaximum: true` beside `maximum` where JSON Schema since draft 6
 * writes `exclusiveMaximum: <number>` (refused as invalid otherwise). Pure: no Nest import.
 */
import type { JsonSchema } from '../tool-definition.js';

/** Keywords holding one schema. */
const ONE = [
  'items',
  'additionalProperties',
  'not',
  'contains',
  'propertyNames',
  'if',
  'then',
  'else',
];
/** Keywords holding a list of schemas. */
const LIST = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
/** Keywords holding schemas by name. */
const BY_NAME = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];

/**
 * `schema` in JSON Schema's terms: a boolean `exclusiveMaximum`/`exclusiveMinimum` becomes the
 * number form (the bound it marks exclusive), and an `enum` listing a value twice lists it once
 * (a slip Ajv refuses), at any depth. What needs no change is returned as it is.
 */
export function toJsonSchema(schema: JsonSchema): JsonSchema {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return schema;
  let out: JsonSchema | undefined;
  const set = (key: string, value: unknown) => {
    out ??= { ...schema };
    if (value === undefined) delete out[key];
    else out[key] = value;
  };
  for (const [bound, limit] of [
    ['exclusiveMaximum', 'maximum'],
    ['exclusiveMinimum', 'minimum'],
  ] as const) {
    const flag = schema[bound];
    if (typeof flag !== 'boolean') continue;
    set(bound, flag && typeof schema[limit] === 'number' ? schema[limit] : undefined);
    if (flag && typeof schema[limit] === 'number') set(limit, undefined);
  }
  if (Array.isArray(schema.enum)) {
    const seen = new Set<string>();
    const once = schema.enum.filter(
      (v) => !seen.has(JSON.stringify(v)) && seen.add(JSON.stringify(v)),
    );
    if (once.length < schema.enum.length) set('enum', once);
  }
  for (const key of ONE)
    if (isSchema(schema[key])) {
      const inner = toJsonSchema(schema[key] as JsonSchema);
      if (inner !== schema[key]) set(key, inner);
    }
  for (const key of LIST)
    if (Array.isArray(schema[key])) {
      const list = schema[key] as JsonSchema[];
      const inner = list.map(toJsonSchema);
      if (inner.some((s, i) => s !== list[i])) set(key, inner);
    }
  for (const key of BY_NAME)
    if (isSchema(schema[key])) {
      const map = schema[key] as Record<string, JsonSchema>;
      const inner = Object.fromEntries(Object.entries(map).map(([k, s]) => [k, toJsonSchema(s)]));
      if (Object.keys(map).some((k) => inner[k] !== map[k])) set(key, inner);
    }
  return out ?? schema;
}

function isSchema(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
