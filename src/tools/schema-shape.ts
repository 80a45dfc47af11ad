/**
 * What a JSON Schema asks of an object or array value once its indirections are followed: a local
 * `$ref` (`#/$defs/Guest`, as Pydantic, FastMCP and zod write nested models), `allOf` parts
 * (Pydantic v1 wraps a `$ref` in one), and the one alternative of `anyOf`/`oneOf` other than null
 * (`Optional[Guest]`). For checks that walk arguments by their schema. Pure: no Nest import.
 */
import { isJsonObject, pointed } from '../common/json-pointer.js';
import type { JsonSchema } from './tool-definition.js';

/** Indirections followed at most, against a `$ref` chain that loops. */
export const MAX_HOPS = 16;

export function isObject(value: unknown): value is JsonSchema {
  return isJsonObject(value);
}

export { pointed };

/** `schema` with its `$ref`s followed (one that cannot be: the schema as it is). */
export function dereferenced(schema: JsonSchema, root: JsonSchema): JsonSchema {
  let current = schema;
  for (let hop = 0; hop < MAX_HOPS && typeof current.$ref === 'string'; hop++) {
    const target = pointed(root, current.$ref);
    if (!isObject(target)) break;
    current = target;
  }
  return current;
}

const isNullType = (s: JsonSchema) => s.type === 'null';

/**
 * What `schema` asks of a value that is an object or array: `properties`, `required` and `items`,
 * its `$ref` followed, its `allOf` parts' merged in, or those of its one alternative besides null.
 */
export function shapeOf(
  schema: JsonSchema,
  root: JsonSchema,
  hops = 0,
): { properties?: Record<string, JsonSchema>; required: string[]; items?: JsonSchema } {
  const own = dereferenced(schema, root);
  const shape = {
    properties: isObject(own.properties)
      ? (own.properties as Record<string, JsonSchema>)
      : undefined,
    required: Array.isArray(own.required) ? (own.required as string[]) : [],
    items: isObject(own.items) ? own.items : undefined,
  };
  if (hops >= MAX_HOPS) return shape;
  const parts = Array.isArray(own.allOf) ? own.allOf.filter(isObject) : [];
  const alternatives = [own.anyOf, own.oneOf]
    .flatMap((list) => (Array.isArray(list) ? list.filter(isObject) : []))
    .filter((member) => !isNullType(dereferenced(member, root)));
  if (!shape.properties && !shape.items && alternatives.length === 1) parts.push(alternatives[0]!);
  for (const part of parts) {
    const inner = shapeOf(part, root, hops + 1);
    if (inner.properties) shape.properties = { ...inner.properties, ...shape.properties };
    shape.required = [...new Set([...shape.required, ...inner.required])];
    shape.items ??= inner.items;
  }
  return shape;
}
