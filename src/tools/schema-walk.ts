/** The subschemas of a JSON Schema, for changes made at every depth. Pure: no Nest import. */
import type { JsonSchema } from './tool-definition.js';

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

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `schema` with `change` applied to each of its direct subschemas (`properties`' values,
 * `items`, `anyOf`'s members, …); the very object when no subschema changed.
 */
export function mapSubschemas(
  schema: JsonSchema,
  change: (subschema: JsonSchema) => JsonSchema,
): JsonSchema {
  let out: JsonSchema | undefined;
  const set = (key: string, value: unknown) => ((out ??= { ...schema })[key] = value);
  for (const key of ONE)
    if (isObject(schema[key])) {
      const inner = change(schema[key]);
      if (inner !== schema[key]) set(key, inner);
    }
  for (const key of LIST)
    if (Array.isArray(schema[key])) {
      const list = schema[key] as unknown[];
      const inner = list.map((s) => (isObject(s) ? change(s) : s));
      if (inner.some((s, i) => s !== list[i])) set(key, inner);
    }
  for (const key of BY_NAME)
    if (isObject(schema[key])) {
      const map = schema[key];
      const inner = Object.fromEntries(
        Object.entries(map).map(([k, s]) => [k, isObject(s) ? change(s) : s]),
      );
      if (Object.keys(map).some((k) => inner[k] !== map[k])) set(key, inner);
    }
  return out ?? schema;
}
