/**
 * How a call's arguments are written into a request as text: a value in a URL or header, the
 * pairs of a query string, a form body. Pure: no Nest import.
 */
import type { PlaceholderStyle, QueryStyle } from './tool-definition.js';

/**
 * `text` percent-encoded as UTF-8, as for a URL or a form. A lone surrogate (a model's JSON may
 * hold `"\ud800"`) is written as U+FFFD, as an encoder to UTF-8 writes it, where
 * `encodeURIComponent` alone throws.
 */
export const encodeText = (text: string): string => encodeURIComponent(text.toWellFormed());

/** Strings unquoted, numbers and booleans as text, anything else as JSON. */
export function argumentText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value) ?? '';
}

/**
 * What a `{placeholder}` of a URL or header becomes: `argumentText` of the value, encoded; a list
 * of plain values joined by commas, each encoded (OpenAPI's "simple" style, HTTP's list form).
 */
export function placeholderText(value: unknown, encode: (text: string) => string): string {
  if (Array.isArray(value) && value.every((item) => typeof item !== 'object' || item === null))
    return value.map((item) => encode(argumentText(item))).join(',');
  return encode(argumentText(value));
}

/**
 * What `{name}` becomes for a value written in `style` (OpenAPI 3, "Style Examples", path
 * parameters): `simple` `blue` / `blue,black` / `R,100,G,200` (exploded `R=100,G=200`); `label`
 * the same after a `.`, with `.` between items when exploded (`.blue.black`, `.R=100.G=200`);
 * `matrix` `;name=blue` / `;name=blue,black` / `;name=R,100,G,200` (exploded `;name=blue;name=black`,
 * `;R=100;G=200`). Each key and item is `encode`d, the delimiters are not.
 */
export function styledPlaceholder(
  name: string,
  value: unknown,
  { style, explode = false }: PlaceholderStyle,
  encode: (text: string) => string,
): string {
  const enc = (item: unknown) => encode(argumentText(item));
  const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
  const items: string[] = Array.isArray(value)
    ? value.map(enc)
    : isObject
      ? Object.entries(value as Record<string, unknown>).flatMap(([k, v]) =>
          explode ? [`${encode(k)}=${enc(v)}`] : [encode(k), enc(v)],
        )
      : [enc(value)];
  if (style === 'label') return `.${items.join(explode ? '.' : ',')}`;
  if (style === 'simple') return items.join(',');
  const key = encode(name);
  if (!explode) return `;${key}=${items.join(',')}`;
  return isObject ? `;${items.join(';')}` : items.map((item) => `;${key}=${item}`).join('');
}

const DELIMITERS = { form: ',', spaceDelimited: '%20', pipeDelimited: '%7C' } as const;

/**
 * The query pairs of one argument: `key=value` (objects and arrays as JSON text), or as its
 * `style` says (OpenAPI 3, "Style Examples"): exploded, an array repeats its key (`id=3&id=4`)
 * and an object's properties are pairs of their own (`R=100&G=200`); not exploded, the items are
 * joined (`id=3,4`, `id=3%204`, `id=3%7C4`; an object as `color=R,100,G,200`); `deepObject`
 * writes `color[R]=100&color[G]=200`.
 */
export function queryPairs(key: string, value: unknown, style: QueryStyle | undefined): string[] {
  const enc = (text: unknown) => encodeText(argumentText(text));
  const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
  if (!style || !(Array.isArray(value) || isObject)) return [`${enc(key)}=${enc(value)}`];
  const explode = style.explode ?? style.style === 'form';
  const entries = isObject ? Object.entries(value as Record<string, unknown>) : [];
  if (style.style === 'deepObject' && isObject)
    return entries.map(([k, v]) => `${enc(key)}[${enc(k)}]=${enc(v)}`);
  if (explode)
    return isObject
      ? entries.map(([k, v]) => `${enc(k)}=${enc(v)}`)
      : (value as unknown[]).map((item) => `${enc(key)}=${enc(item)}`);
  const delimiter = style.style === 'deepObject' ? ',' : DELIMITERS[style.style];
  const items = isObject ? entries.flat() : (value as unknown[]);
  return [`${enc(key)}=${items.map(enc).join(delimiter)}`];
}

export const FORM_TYPE = /^\s*application\/x-www-form-urlencoded\s*(;|$)/i;

/**
 * The arguments as a form body (a tool whose Content-Type is application/x-www-form-urlencoded):
 * `key=value`, an array of values repeating its key (`To=a&To=b`), an object's fields, and an
 * array's objects, in brackets (`metadata[order]=7`, `items[0][price]=p_1`), as Rails, PHP, qs
 * and Stripe read them; null as an empty value.
 */
export function formBody(args: Record<string, unknown>): string {
  const pairs: string[] = [];
  const add = (key: string, value: unknown): void => {
    if (value === undefined) return;
    if (Array.isArray(value)) {
      value.forEach((item, i) =>
        add(typeof item === 'object' && item !== null ? `${key}[${i}]` : key, item),
      );
    } else if (typeof value === 'object' && value !== null) {
      for (const [k, v] of Object.entries(value)) add(`${key}[${k}]`, v);
    } else {
      const text = value === null ? '' : argumentText(value);
      pairs.push(`${encodeText(key)}=${encodeText(text)}`);
    }
  };
  for (const [key, value] of Object.entries(args)) add(key, value);
  return pairs.join('&');
}
