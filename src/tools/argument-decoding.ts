/**
 * Arguments a model wrote as text where their schema takes something else: an object or a list
 * written as its JSON (or Python literal) text, `"{\"city\": \"Rome\"}"`, `"['milk', 'bread']"`,
 * as models often encode nested values once more; a boolean written `"True"` or `" false "`;
 * a list written as its items joined by commas (`"1, 2"`, `"wifi, meal"`, where each is one);
 * an argument's name written in another case or joined another way (`cityName` for `city_name`).
 * Pure: no Nest import.
 */
import { MAX_JSON_DEPTH } from '../common/nesting.js';
import { parseJsonExact, setOwn } from '../llm/parsing/json.js';
import { parsePythonLiteral } from '../llm/parsing/python-literal.js';
import { canonicalType } from '../llm/parsing/value-typing.js';
import { enumValueOf, nameKey } from '../common/plain-words.js';
import type { JsonSchema } from './tool-definition.js';
import { dereferenced, isObject, MAX_HOPS, shapeOf } from './schema-shape.js';

/**
 * The JSON types `schema` takes (its `$ref` followed, its alternatives' and parts' together;
 * `properties` or `items` alone stand for an object or a list); empty when it names none.
 */
function typesOf(schema: JsonSchema, root: JsonSchema, hops = 0): Set<string> {
  const own = dereferenced(schema, root);
  const named = (Array.isArray(own.type) ? own.type : [own.type]).filter(
    (t): t is string => typeof t === 'string',
  );
  const types = new Set(named.map((t) => canonicalType(t) ?? t));
  if (types.size === 0 && hops < MAX_HOPS)
    for (const list of [own.anyOf, own.oneOf, own.allOf])
      if (Array.isArray(list))
        for (const member of list.filter(isObject))
          for (const t of typesOf(member, root, hops + 1)) types.add(t);
  if (types.size === 0 && isObject(own.properties)) types.add('object');
  if (types.size === 0 && isObject(own.items)) types.add('array');
  return types;
}

/**
 * What `text` stands for when its schema, which does not take a string, takes an object, a list
 * or a boolean it is the text of, or it is null written as a word (`"None"`, `"null"`: then as
 * JSON's null, absent when the argument is optional); undefined when it is none of them (the
 * check then says what is wrong, as before). A string the schema takes, or may take, is left as
 * it is ("None" may be an answer).
 */
function decodedText(text: string, types: Set<string>): unknown {
  if (types.size === 0 || types.has('string')) return undefined;
  const trimmed = text.trim();
  if (/^(null|none|undefined)$/i.test(trimmed)) return null;
  if (types.has('boolean') && /^(true|false)$/i.test(trimmed))
    return trimmed.toLowerCase() === 'true';
  if (!/^[[{]/.test(trimmed)) return undefined;
  const value = parseJsonExact(trimmed) ?? parsePythonLiteral(trimmed);
  if (Array.isArray(value)) return types.has('array') ? value : undefined;
  return isObject(value) && types.has('object') ? value : undefined;
}

/** A number written with thousands separators (`1,000`), not a list. */
const GROUPED_NUMBER = /^-?\d{1,3}(,\d{3})+(\.\d+)?$/;
const NUMBER = /^-?\d+(\.\d+)?$/;

/**
 * The list a text stands for when its schema takes a list and no string, and it is its items
 * joined by commas or semicolons (`"1, 2, 3"` for numbers, `"wifi, meal"` for values of an
 * `enum`), each of them one of the items the list takes; undefined otherwise. Free text is left
 * whole (`"10 Main St, Springfield"` may be one address).
 */
function joinedList(text: string, schema: JsonSchema, types: Set<string>, root: JsonSchema) {
  if (!types.has('array') || types.has('string') || !/[,;]/.test(text)) return undefined;
  const items = shapeOf(schema, root).items;
  if (!items || GROUPED_NUMBER.test(text.trim())) return undefined;
  const parts = text.split(/[,;]/).map((part) => part.trim());
  if (parts.some((part) => part === '')) return undefined;
  const itemTypes = [...typesOf(items, root)];
  if (itemTypes.length > 0 && itemTypes.every((t) => t === 'integer' || t === 'number'))
    // As text: the check makes them numbers, and refuses an integer past 2^53 as it would.
    return parts.every((part) => NUMBER.test(part)) ? parts : undefined;
  const values = dereferenced(items, root).enum;
  if (!Array.isArray(values) || enumValueOf(values, text) !== undefined) return undefined;
  const chosen = parts.map((part) => enumValueOf(values, part));
  return chosen.every((v) => v !== undefined) ? chosen : undefined;
}

/** `value` decoded where its schema asks (see decodedText, joinedList), and the values within it. */
function settled(schema: JsonSchema, value: unknown, root: JsonSchema, depth: number): unknown {
  let result = value;
  if (typeof value === 'string') {
    const types = typesOf(schema, root);
    const decoded = decodedText(value, types);
    result = decoded !== undefined ? decoded : (joinedList(value, schema, types, root) ?? value);
  }
  decodeTextValues(schema, result, root, depth + 1);
  return result;
}

/**
 * Replaces in `value`, in place, the values written as text that their schema (`schema`, its
 * `$ref`s followed into `root`) takes as an object, a list or a boolean, at any depth: without
 * it, an object so written was refused (a round more, a second or more of a voice turn), and a
 * list so written went to the tool as a list of one item, the text. A string parameter is never
 * touched.
 */
export function decodeTextValues(
  schema: JsonSchema,
  value: unknown,
  root: JsonSchema,
  depth = 0,
): void {
  if (typeof value !== 'object' || value === null || depth > MAX_JSON_DEPTH) return;
  const { properties, items } = shapeOf(schema, root);
  if (Array.isArray(value)) {
    if (items)
      for (const [i, item] of value.entries()) value[i] = settled(items, item, root, depth);
    return;
  }
  if (!properties) return;
  const fields = value as Record<string, unknown>;
  renameKeys(fields, properties);
  for (const [key, inner] of Object.entries(fields))
    if (Object.hasOwn(properties, key))
      setOwn(fields, key, settled(properties[key]!, inner, root, depth));
}

/**
 * Renames, in `fields`, an argument the schema does not declare that is one of its properties
 * but for case and the marks that join words (`cityName`, `City` for `city_name`, `city`), when
 * it matches that one alone and the model did not give it too. Otherwise the call was refused
 * ("must have required property 'city_name'") and the model sent back for a round more.
 */
function renameKeys(fields: Record<string, unknown>, properties: Record<string, JsonSchema>): void {
  const declared = Object.keys(properties);
  for (const key of Object.keys(fields)) {
    if (Object.hasOwn(properties, key)) continue;
    const same = declared.filter((name) => nameKey(name) === nameKey(key));
    if (same.length !== 1 || Object.hasOwn(fields, same[0]!)) continue;
    setOwn(fields, same[0]!, fields[key]);
    delete fields[key];
  }
}
