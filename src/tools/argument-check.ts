import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { setOwn } from '../llm/parsing/json.js';
import { MAX_JSON_DEPTH } from '../common/nesting.js';
import { enumValueOf } from '../common/plain-words.js';
import type { JsonSchema } from './tool-definition.js';
import { withJsonTypes } from './parameters-schema.js';
import { decodeTextValues } from './argument-decoding.js';
import { placeholderIn } from './placeholder-values.js';
import { ARGUMENT_FORMATS, formatForm } from './argument-formats.js';
import { withNullUnions, withTypedNullable } from './null-unions.js';
import { dereferenced, shapeOf } from './schema-shape.js';
import { lenientRegExp } from './schema-patterns.js';

/**
 * Types are coerced where the value is clear ("5" for an integer, 5 for a string; one value for a
 * list, `"duplex"` for `["duplex"]`, and a list of one value for a value, as models write them);
 * dates, times, e-mail addresses and UUIDs are checked (argument-formats.ts), other formats are
 * not (nor said to be unknown: `logger`). A property's `default` is filled in where the model
 * left the argument out.
 */
const OPTIONS = {
  coerceTypes: 'array',
  useDefaults: true,
  allErrors: false,
  strict: false,
  validateFormats: true,
  formats: ARGUMENT_FORMATS,
  logger: false,
  validateSchema: false,
} as const;
/**
 * An integer beyond 2^53 has already lost its last digits (JSON.parse and Number make it a
 * JavaScript number): a tool given one would look up, or change, another record than the one the
 * model named. Added beside every `"type": "integer"` (see withOwnKeywords).
 */
const EXACT_INTEGER = {
  keyword: 'x-exact-integer',
  type: 'number',
  schemaType: 'boolean',
  errors: true,
  validate: function exact(this: unknown, _schema: boolean, data: number): boolean {
    if (Number.isSafeInteger(data) || !Number.isInteger(data)) return true;
    (exact as { errors?: object[] }).errors = [
      {
        keyword: 'x-exact-integer',
        message: `must be at most ${Number.MAX_SAFE_INTEGER} in size: a longer integer loses its last digits here (the tool should declare this parameter a string)`,
        params: {},
      },
    ];
    return false;
  },
} as const;

/**
 * A string not in its `enum` that is one of its values but for case, accents, spaces, `_` and
 * `-` ("Dinner", "dine in" for `dine_in`), and only that one, becomes that value: a model that
 * wrote it so is not sent back for another round, a second or more of a voice turn. Added beside
 * every `enum` (see withOwnKeywords); before it, so that `enum` checks the value it becomes.
 */
const ENUM_FOLD = {
  keyword: 'x-enum-fold',
  schemaType: 'boolean',
  modifying: true,
  before: 'enum',
  validate: (
    _schema: boolean,
    data: unknown,
    parent?: { enum?: unknown },
    cxt?: { parentData: Record<string | number, unknown>; parentDataProperty: string | number },
  ): boolean => {
    const values = parent?.enum;
    if (typeof data !== 'string' || !Array.isArray(values) || values.includes(data)) return true;
    const value = enumValueOf(values, data);
    if (value !== undefined && cxt?.parentData) cxt.parentData[cxt.parentDataProperty] = value;
    return true;
  },
} as const;

/**
 * An Ajv of its own for each schema compiled. An instance keeps every function it has compiled
 * (its scope holds them, for references between schemas) for as long as it lives, removeSchema
 * or not: one shared instance grew ~5 KB with every client tool a session declared and every
 * tool of a replaced set that was called. Each check now holds its own instance, and both go
 * with the tool. (~0.5 ms more a compile, once a schema.)
 */
function newAjv(): Ajv {
  // A pattern JavaScript's Unicode expressions refuse no longer leaves the whole schema unchecked.
  const ajv = new Ajv({ ...OPTIONS, code: { regExp: lenientRegExp } });
  ajv.addKeyword(EXACT_INTEGER);
  ajv.addKeyword(ENUM_FOLD);
  return ajv;
}
/** For errorsText only. */
const texts = newAjv();

/** `schema` with the exactness check beside each integer type, the fold beside each `enum`. */
function withOwnKeywords(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withOwnKeywords);
  if (typeof schema !== 'object' || schema === null) return schema;
  const copy = Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [
      key,
      key === 'enum' || key === 'const' || key === 'default' || key === 'examples'
        ? value
        : withOwnKeywords(value),
    ]),
  );
  const { type, enum: values } = schema as { type?: unknown; enum?: unknown };
  const integer = type === 'integer' || (Array.isArray(type) && type.includes('integer'));
  return {
    ...copy,
    ...(integer && { 'x-exact-integer': true }),
    ...(Array.isArray(values) && { 'x-enum-fold': true }),
  };
}

/** One compiled check per parameters schema; null when the schema cannot be compiled (not checked). */
const compiled = new WeakMap<JsonSchema, ValidateFunction | null>();

function validatorOf(parameters: JsonSchema): ValidateFunction | null {
  let validate = compiled.get(parameters);
  if (validate === undefined) {
    const schema = withOwnKeywords(
      withNullUnions(withTypedNullable(withJsonTypes(parameters, []) as JsonSchema)),
    ) as object;
    try {
      // Its own instance: two tools with the same `$id` compile each (see newAjv).
      validate = newAjv().compile(schema);
    } catch {
      validate = null;
    }
    compiled.set(parameters, validate);
  }
  return validate;
}

/**
 * Checks a call's arguments against its tool's parameters before the tool runs, so that the
 * model learns which argument is wrong (and can call again) instead of the tool's backend getting
 * an incomplete request. Values whose type is clear are coerced in `args` ("5" → 5 for an
 * integer; an object, a list or a boolean written as its text, argument-decoding.ts). An optional
 * argument given as null counts as absent, as models often send it.
 * Returns the problem, or undefined when the call may run.
 */
export function argumentProblem(
  parameters: JsonSchema | undefined,
  args: Record<string, unknown>,
): string | undefined {
  // Objects and lists written as their text become what they say first, then are checked.
  if (parameters) decodeTextValues(parameters, args, parameters);
  const polluting = pollutingKey(args, 'arguments');
  if (polluting)
    return `invalid arguments: ${polluting} is not allowed (it would change object prototypes in a JavaScript backend)`;
  const placeholder = placeholderIn(args);
  if (placeholder)
    return `invalid arguments: ${placeholder.path} is ${JSON.stringify(placeholder.value)}, a placeholder, not a value (ask the user for it if you do not know it)`;
  const validate = parameters && validatorOf(parameters);
  if (!validate) return undefined;
  const required = new Set<string>(
    Array.isArray(parameters.required) ? (parameters.required as string[]) : [],
  );
  // Coercion would make a null "" or 0: a required argument given as null is refused first, and
  // an optional one is absent, at any depth: not sent either (never `?unit=null`).
  const nullPath = withoutNulls(parameters, args, 'arguments', 0, parameters);
  if (nullPath) return `invalid arguments: ${nullPath} must not be null`;
  const candidate = Object.fromEntries(
    Object.entries(args).filter(([key, value]) => value !== null || required.has(key)),
  );
  if (!validate(candidate))
    return `invalid arguments: ${texts.errorsText(named(validate.errors), { dataVar: 'arguments' })}`;
  for (const [key, value] of Object.entries(candidate)) setOwn(args, key, value);
  return undefined;
}

/**
 * Takes out of `value`, in place, the nulls of optional properties that do not take null; the
 * path of a required one that does not, if any. Nested models are followed through their `$ref`s
 * into `root` (schema-shape.ts).
 */
function withoutNulls(
  schema: JsonSchema | undefined,
  value: unknown,
  path: string,
  depth: number,
  root: JsonSchema,
): string | undefined {
  if (!schema || typeof value !== 'object' || value === null || depth > MAX_JSON_DEPTH) return;
  const { properties, required, items } = shapeOf(schema, root);
  if (Array.isArray(value)) {
    if (!items) return;
    for (const [i, item] of value.entries()) {
      const found = withoutNulls(items, item, `${path}/${i}`, depth + 1, root);
      if (found) return found;
    }
    return;
  }
  if (!properties) return;
  const fields = value as Record<string, unknown>;
  for (const [key, inner] of Object.entries(fields)) {
    const property = Object.hasOwn(properties, key) ? properties[key] : undefined;
    if (inner === null && property && !takesNull(dereferenced(property, root), root)) {
      if (required.includes(key)) return `${path}/${key}`;
      delete fields[key];
    } else {
      const found = withoutNulls(property, inner, `${path}/${key}`, depth + 1, root);
      if (found) return found;
    }
  }
}

/**
 * The errors, one of an argument the schema does not take naming it (Ajv's text does not), one
 * of a format saying how a value of it is written.
 */
function named(errors: ErrorObject[] | null | undefined): ErrorObject[] | null | undefined {
  return errors?.map((e) => {
    if (e.keyword === 'additionalProperties')
      return { ...e, message: `${e.message}: '${String(e.params.additionalProperty)}'` };
    if (e.keyword === 'format')
      return { ...e, message: `${e.message}${formatForm(e.params.format)}` };
    return e;
  });
}

/**
 * Null is a value of the property: its schema allows it (a `null` type, OpenAPI 3.0's
 * `nullable`, an alternative of type null), or there is no schema for it.
 */
function takesNull(property: JsonSchema | undefined, root: JsonSchema): boolean {
  if (!property) return true;
  const isNull = (member: JsonSchema) => {
    const type = dereferenced(member, root).type;
    return type === 'null' || (Array.isArray(type) && type.includes('null'));
  };
  const alternatives = [property.anyOf, property.oneOf].flatMap((a) =>
    Array.isArray(a) ? (a as JsonSchema[]) : [],
  );
  return isNull(property) || property.nullable === true || alternatives.some(isNull);
}

/**
 * The path of a key that pollutes prototypes when a JavaScript backend merges the arguments into
 * an object (`__proto__`, or `constructor` holding a `prototype`), at any depth: a model steered
 * by text it read (a web page, a document) must not be able to send one to an internal service.
 */
function pollutingKey(value: unknown, path: string): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
    const at = `${path}/${key}`;
    if (key === '__proto__') return at;
    if (
      key === 'constructor' &&
      typeof inner === 'object' &&
      inner !== null &&
      Object.hasOwn(inner, 'prototype')
    )
      return at;
    const deeper = pollutingKey(inner, at);
    if (deeper) return deeper;
  }
  return undefined;
}
