/**
 * The fields of a form an MCP server asks its client's user to fill (`elicitation/create`'s
 * `requestedSchema`: the protocol's primitive schemas), as questions the engine can put: a yes or
 * no for a boolean, a text, a number, a choice or choices to tick for the others. Pure: no Nest
 * import.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import formatsPlugin from 'ajv-formats';
import type { AnswerValue, Choice, Wanted } from '../user-question.js';

/** A field of a form, as the protocol's primitive schemas declare one. */
export interface FormField {
  type?: unknown;
  title?: unknown;
  description?: unknown;
  enum?: unknown;
  enumNames?: unknown;
  oneOf?: unknown;
  minLength?: unknown;
  maxLength?: unknown;
  minimum?: unknown;
  maximum?: unknown;
  format?: unknown;
  default?: unknown;
  /** A list to tick: its items' options, and how many may be ticked. */
  items?: unknown;
  minItems?: unknown;
  maxItems?: unknown;
}

/** A form as the server sends it. */
export interface FormSchema {
  properties?: Record<string, FormField>;
  required?: unknown;
}

/** One field as a question: its name in the answer, how it is asked, what it wants. */
export interface FormQuestion {
  name: string;
  /** The field's description (or title, or name) as a question: "Your email address?". */
  label: string;
  required: boolean;
  /** Undefined for a boolean: a yes or no fills it. */
  wanted?: Wanted;
}

/** The most fields of a form the engine asks, one after the other. */
export const MAX_FORM_FIELDS = 20;

/**
 * The form's fields as questions, in the server's order ([] for a form of no fields: a
 * confirmation); undefined when one cannot be asked (a list of other than titled strings, an
 * object), or there are more than MAX_FORM_FIELDS.
 */
export function formQuestions(schema: FormSchema | undefined): FormQuestion[] | undefined {
  const fields = Object.entries(schema?.properties ?? {});
  if (fields.length > MAX_FORM_FIELDS) return undefined;
  const required = new Set(Array.isArray(schema?.required) ? schema.required : []);
  const questions: FormQuestion[] = [];
  for (const [name, field] of fields) {
    if (!field || typeof field !== 'object') return undefined;
    const label = labelOf(name, field);
    const asked = { name, label, required: required.has(name) };
    if (field.type === 'boolean') {
      questions.push(asked);
      continue;
    }
    const wanted = fieldWanted(field);
    if (!wanted) return undefined;
    // A no to a form's one field declines the form; in a form of several, it skips the field.
    const optional = !asked.required && fields.length > 1 && { optional: true };
    const fallback = defaultOf(field.default);
    const more = { ...optional, ...(fallback !== undefined && { default: fallback }) };
    questions.push({ ...asked, wanted: { ...wanted, ...more, check: fieldCheck(field) } });
  }
  return questions;
}

/** A field's `default`, when it is a value an answer could be. */
function defaultOf(value: unknown): AnswerValue | undefined {
  if (typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value)))
    return value;
  return Array.isArray(value) && value.every((v) => typeof v === 'string') ? value : undefined;
}

/**
 * What the user is asked for a field, as a question: its description ("Your full, legal name"),
 * else its title (a form's label: "Name"), else its name.
 */
function labelOf(name: string, field: FormField): string {
  const text = [field.description, field.title].find(
    (t): t is string => typeof t === 'string' && t.trim() !== '',
  );
  const label = (text ?? name.replace(/[_-]+/g, ' ')).trim();
  return /[?.!:]$/.test(label) ? label : `${label}?`;
}

const strings = (list: unknown): string[] | undefined =>
  Array.isArray(list) && list.length > 0 && list.every((v) => typeof v === 'string')
    ? list
    : undefined;
const numberOf = (n: unknown) => (typeof n === 'number' ? n : undefined);

/**
 * The options of an `enum` (titled by `enumNames`, or by their values) or of `oneOf`/`anyOf`
 * titled constants; undefined when there are none, or one is not a titled string.
 */
function choicesOf(values: unknown, names: unknown, titled: unknown): Choice[] | undefined {
  const listed = strings(values);
  if (listed) {
    const shown = strings(names);
    const titles = shown?.length === listed.length ? shown : listed;
    return listed.map((value, i) => ({ value, title: titles[i]! }));
  }
  if (!Array.isArray(titled) || titled.length === 0) return undefined;
  const choices = (titled as { const?: unknown; title?: unknown }[]).filter(
    (c): c is { const: string; title: string } =>
      typeof c?.const === 'string' && typeof c.title === 'string',
  );
  if (choices.length !== titled.length) return undefined;
  return choices.map((c) => ({ value: c.const, title: c.title }));
}

function fieldWanted(field: FormField): Wanted | undefined {
  if (field.type === 'number' || field.type === 'integer')
    return { type: field.type, minimum: numberOf(field.minimum), maximum: numberOf(field.maximum) };
  if (field.type === 'array') {
    // A list to tick: its items' options.
    const items = (field.items ?? {}) as FormField & { anyOf?: unknown };
    const choices = choicesOf(items.enum, undefined, items.anyOf);
    if (!choices) return undefined;
    const [minItems, maxItems] = [numberOf(field.minItems), numberOf(field.maxItems)];
    return { type: 'choices', choices, minItems, maxItems };
  }
  if (field.type !== 'string') return undefined;
  if (field.enum !== undefined || field.oneOf !== undefined) {
    const choices = choicesOf(field.enum, field.enumNames, field.oneOf);
    return choices && { type: 'choice', choices };
  }
  return {
    type: 'text',
    minLength: numberOf(field.minLength),
    maxLength: numberOf(field.maxLength),
    ...(typeof field.format === 'string' && { format: field.format }),
  };
}

/**
 * The field's schema as the server holds the answer to it (the SDK checks it with Ajv and its
 * formats: an email, a URI, a date): an answer the server would refuse is asked again instead.
 * An Ajv of its own, made at the first answer, goes with the question (one shared instance
 * would keep every form's schema for good); a schema it cannot compile checks nothing.
 */
function fieldCheck(field: FormField): (value: AnswerValue) => string | undefined {
  let check: ValidateFunction | undefined;
  return (value) => {
    try {
      const ajv = () => formatsPlugin.default(new Ajv({ strict: false, logger: false }));
      check ??= ajv().compile(field);
    } catch {
      return undefined;
    }
    if (check(value)) return undefined;
    const [error] = check.errors ?? [];
    return `the answer ${error?.message ?? 'does not fit'}`;
  };
}
