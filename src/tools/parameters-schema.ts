/**
 * Whether a tool's `parameters` is a JSON Schema, by the meta-schema of the draft it declares;
 * the type names Qwen tool parsers know besides JSON Schema's. Pure: no Nest import.
 */
import { Ajv } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { MAX_JSON_DEPTH, nestedDeeper } from '../common/nesting.js';
import { canonicalType } from '../llm/parsing/value-typing.js';
import type { JsonSchema } from './tool-definition.js';

/**
 * Meta-schema checks by the draft a schema declares (`$schema`): draft-07 when it declares none.
 * Each made at its first use (a draft no tool declares costs nothing).
 */
const made: { draft7?: Ajv; '2019-09'?: Ajv; '2020-12'?: Ajv } = {};
const metaSchemaChecks = {
  draft7: () => (made.draft7 ??= new Ajv({ strict: false })),
  '2019-09': () => (made['2019-09'] ??= new Ajv2019({ strict: false })),
  '2020-12': () => (made['2020-12'] ??= new Ajv2020({ strict: false })),
};
function metaSchemaCheckOf(schema: JsonSchema): Ajv | undefined {
  const declared = schema.$schema;
  if (declared === undefined) return metaSchemaChecks.draft7();
  if (typeof declared !== 'string') return undefined;
  if (declared.includes('2020-12')) return metaSchemaChecks['2020-12']();
  if (declared.includes('2019-09')) return metaSchemaChecks['2019-09']();
  return /draft-0[4-7]/.test(declared) ? metaSchemaChecks.draft7() : undefined;
}
const JSON_TYPES = new Set(['string', 'integer', 'number', 'boolean', 'object', 'array', 'null']);

/**
 * A copy of `schema` for the meta-schema check, in which type names that are not JSON Schema's
 * but that Qwen tool parsers know (`float`, `dict`, `list`, `int64`, …; see canonicalType) stand
 * as the JSON type they mean; the names replaced go to `aliases`. An unknown name is left, and
 * fails the check.
 */
export function withJsonTypes(schema: unknown, aliases: string[]): unknown {
  if (Array.isArray(schema)) return schema.map((s) => withJsonTypes(s, aliases));
  if (typeof schema !== 'object' || schema === null) return schema;
  const alias = (t: unknown) => {
    if (typeof t !== 'string' || JSON_TYPES.has(t)) return t;
    const json = canonicalType(t);
    if (json) aliases.push(t);
    return json ?? t;
  };
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => {
      if (key === 'type' && typeof value === 'string') return [key, alias(value)];
      if (key === 'type' && Array.isArray(value)) return [key, value.map(alias)];
      return [key, withJsonTypes(value, aliases)];
    }),
  );
}

/**
 * Why `parameters` is not a valid JSON Schema, or undefined when it is. Type names Qwen tool
 * parsers know (`float`, `dict`, …) pass; each one used is added to `aliases`.
 */
export function parametersProblem(
  parameters: JsonSchema,
  aliases: string[] = [],
): string | undefined {
  if (nestedDeeper(parameters, MAX_JSON_DEPTH))
    return `is nested more than ${MAX_JSON_DEPTH} levels deep`;
  const check = metaSchemaCheckOf(parameters);
  if (!check)
    return `declares a $schema this engine does not know (${JSON.stringify(parameters.$schema)}): JSON Schema draft-07, 2019-09 or 2020-12`;
  if (check.validateSchema(withJsonTypes(parameters, aliases) as JsonSchema)) return undefined;
  return `is not a valid JSON Schema: ${check.errorsText(check.errors)}`;
}
