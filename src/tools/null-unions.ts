/**
 * Optional values as Pydantic, FastAPI and zod write them, `{"anyOf": [{"type": "string"},
 * {"type": "null"}]}`, for the argument check. Ajv, which coerces types, tries the first member
 * first and makes a null "" there (0 for an integer, false for a boolean), which then passes: the
 * tool was sent `""` where the model wrote null. One member and null become a union of types,
 * `{"type": ["string", "null"]}`, which takes a null as it is (and "5" for an integer still as
 * 5). Pure: no Nest import.
 */
import { mapSubschemas } from './schema-walk.js';
import type { JsonSchema } from './tool-definition.js';

/** Keywords that do not change what a schema accepts. */
const ANNOTATIONS = new Set(['title', 'description', 'default', 'examples', 'example', '$comment']);
/** Keywords a member must not have to be joined with null by `type` alone. */
const COMPOSED = ['$ref', 'anyOf', 'oneOf', 'allOf', 'not', 'if', '$dynamicRef'];

const isNullOnly = (s: JsonSchema) =>
  s.type === 'null' && Object.keys(s).every((k) => k === 'type' || ANNOTATIONS.has(k));

/** `schema` with each `anyOf`/`oneOf` of one simple member and null written as a union of types. */
export function withNullUnions(schema: JsonSchema): JsonSchema {
  const deeper = mapSubschemas(schema, withNullUnions);
  for (const key of ['anyOf', 'oneOf'] as const) {
    const value = simpleBesideNull(deeper[key]);
    // The member's keywords join the schema's: none may be there already (but annotations).
    if (!value || Object.keys(value).some((k) => k in deeper && !ANNOTATIONS.has(k))) continue;
    const joined: JsonSchema = { ...deeper, ...value, type: [value.type, 'null'] };
    delete joined[key];
    if (Array.isArray(value.enum)) joined.enum = [...(value.enum as unknown[]), null];
    if ('const' in value) {
      delete joined.const;
      joined.enum = [value.const, null];
    }
    return joined;
  }
  return deeper;
}

/** Of two members, one null alone: the other, when it has one type and nothing composed. */
function simpleBesideNull(members: unknown): JsonSchema | undefined {
  if (!Array.isArray(members) || members.length !== 2) return undefined;
  const [a, b] = members as JsonSchema[];
  const value = isNullOnly(b!) ? a! : isNullOnly(a!) ? b! : undefined;
  if (!value || typeof value.type !== 'string') return undefined;
  return COMPOSED.some((k) => k in value) ? undefined : value;
}

/**
 * `schema` with each OpenAPI 3.0 `"nullable": true` that has no `type` beside it (`{"nullable":
 * true, "allOf": [{"$ref": …}]}`, common for a reference that may be null) written as an
 * alternative with null, at any depth: Ajv refuses to compile one, and the tool's arguments then
 * went unchecked. (With a `type`, Ajv reads `nullable` itself.)
 */
export function withTypedNullable(schema: JsonSchema): JsonSchema {
  const deeper = mapSubschemas(schema, withTypedNullable);
  if (!('nullable' in deeper) || 'type' in deeper) return deeper;
  const { nullable, ...rest } = deeper;
  if (nullable !== true) return rest;
  const annotations = Object.fromEntries(Object.entries(rest).filter(([k]) => ANNOTATIONS.has(k)));
  const value = Object.fromEntries(Object.entries(rest).filter(([k]) => !ANNOTATIONS.has(k)));
  return { ...annotations, anyOf: [value, { type: 'null' }] };
}
