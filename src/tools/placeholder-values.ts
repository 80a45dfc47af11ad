/**
 * Arguments that are a template's placeholder, not a value: `"<city>"`, `"{customer_name}"`,
 * `"[phone number]"`, `"<your name>"`, as a model writes them when it calls before it has the
 * value (it copied an example's form, or the parameter's name). Sent, a table was booked for
 * "<name>" and an SMS went to "[phone number]". Pure: no Nest import.
 */
import { MAX_JSON_DEPTH } from '../common/nesting.js';
import { nameKey, plainWords } from '../common/plain-words.js';

/** A whole value in a template's brackets: `<…>`, `{…}`, `{{…}}`, `${…}`, `[…]`, `[[…]]`. */
const BRACKETED = /^(?:<([^<>]+)>|\{\{([^{}]+)\}\}|\$?\{([^{}]+)\}|\[\[?([^[\]]+)\]?\])$/;
/** Placeholders whatever the parameter: "<your name>", "[insert date]", "<value>". */
const GENERIC = /^(?:(?:your|insert|enter) |(?:value|string|text|placeholder|tbd|todo)$)/;
/** Words of the fields a placeholder stands for whatever the parameter: "[phone number]". */
const FIELD =
  /(?:^| )(?:(?:first |last |full )?name|phone|number|e ?mail|address|date|time|city|id)(?: |$)/;

/**
 * Whether `text` is a JSON list or object (`["city", "Rome"]`, `{"city": "Rome"}`): data written
 * as text, for a parameter that takes text, never a template's placeholder.
 */
function isJsonText(text: string): boolean {
  try {
    return typeof JSON.parse(text) === 'object';
  } catch {
    return false;
  }
}

/**
 * Whether `value` is a placeholder for the parameter `name`: in a template's brackets, and the
 * name, a part of it (`<city>` for `destination_city`), something naming it (`<the user's
 * name>` for `name`), or a placeholder whatever the parameter (`<your email>`, `[phone number]`,
 * `{{first_name}}`).
 */
export function isPlaceholder(value: string, name: string): boolean {
  const trimmed = value.trim();
  const match = BRACKETED.exec(trimmed);
  const inner = match?.slice(1).find((group) => group !== undefined);
  if (inner === undefined || isJsonText(trimmed)) return false;
  const said = plainWords(inner).join(' ');
  if (GENERIC.test(said) || FIELD.test(said)) return true;
  const placeholder = nameKey(inner);
  const parameter = nameKey(name);
  if (placeholder === '' || parameter === '') return false;
  return (
    placeholder === parameter ||
    (placeholder.length >= 3 && parameter.includes(placeholder)) ||
    (parameter.length >= 3 && placeholder.includes(parameter))
  );
}

/**
 * The first argument in `value` that is a placeholder for its parameter (see isPlaceholder), at
 * any depth, and its path; an item of a list is taken for the list's parameter.
 */
export function placeholderIn(
  value: unknown,
  path = 'arguments',
  name = '',
  depth = 0,
): { path: string; value: string } | undefined {
  if (typeof value === 'string') return isPlaceholder(value, name) ? { path, value } : undefined;
  if (typeof value !== 'object' || value === null || depth > MAX_JSON_DEPTH) return undefined;
  const entries: [string, unknown, string][] = Array.isArray(value)
    ? value.map((item, i) => [String(i), item, name])
    : Object.entries(value).map(([key, inner]) => [key, inner, key]);
  for (const [at, inner, parameter] of entries) {
    const found = placeholderIn(inner, `${path}/${at}`, parameter, depth + 1);
    if (found) return found;
  }
  return undefined;
}
