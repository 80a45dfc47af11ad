/**
 * An HTTP tool's `body`: the request body as the backend wants it, written with the arguments'
 * places in it (`{"fields": {"project": {"key": "OPS"}, "summary": "{summary}"}}`), constants and
 * secrets beside them. Pure: no Nest import.
 */

/** A string that is one `{argument}` and nothing else: the argument's value goes in as it is. */
const WHOLE_ARGUMENT = /^\{([A-Za-z0-9_.-]+)\}$/;
/** An `{argument}` placeholder anywhere in a string (not `${…}`, a secret or a session variable). */
const ARGUMENT = /(?<!\$)\{([A-Za-z0-9_.-]+)\}/g;

const ABSENT = Symbol('absent');

export interface Filling {
  /** A string of the template with its placeholders filled (text, secrets, variables). */
  text: (template: string) => string;
  /** The value of argument `name`, undefined when the model left it out. */
  argument: (name: string) => unknown;
}

function fill(template: unknown, filling: Filling): unknown {
  if (typeof template === 'string') {
    const whole = WHOLE_ARGUMENT.exec(template);
    if (!whole) return filling.text(template);
    const value = filling.argument(whole[1]!);
    return value === undefined ? ABSENT : value;
  }
  if (Array.isArray(template))
    return template.map((item) => fill(item, filling)).filter((item) => item !== ABSENT);
  if (typeof template === 'object' && template !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(template)) {
      const value = fill(item, filling);
      if (value !== ABSENT) out[key] = value;
    }
    return out;
  }
  return template;
}

/**
 * The argument a text template is and nothing else (`"{items}"`): with a JSON Content-Type its
 * value is the body, as JSON (an OpenAPI operation's array body).
 */
export function wholeArgument(template: unknown): string | undefined {
  return typeof template === 'string' ? WHOLE_ARGUMENT.exec(template)?.[1] : undefined;
}

/**
 * The body `template` makes: a string whose whole is one `{argument}` becomes that argument's
 * value, typed (a number, an object), and is left out — key or item — when the model gave none;
 * other strings are filled as text. A template that is a string (XML, a text) is filled as text.
 */
export function fillBody(template: unknown, filling: Filling): unknown {
  return typeof template === 'string' ? filling.text(template) : fill(template, filling);
}

/** Every string of `template`, by where it stands (`body.fields.summary`): for checks at load. */
export function bodyStrings(template: unknown, at = 'body'): Record<string, string> {
  if (typeof template === 'string') return { [at]: template };
  if (typeof template !== 'object' || template === null) return {};
  const entries = Array.isArray(template)
    ? template.map((item, i) => [String(i), item] as const)
    : Object.entries(template);
  const strings: Record<string, string> = {};
  for (const [key, item] of entries) Object.assign(strings, bodyStrings(item, `${at}.${key}`));
  return strings;
}

/** The arguments the placeholders of `texts` name. */
export function argumentsNamed(texts: Iterable<string>): Set<string> {
  const names = new Set<string>();
  for (const text of texts) for (const [, name] of text.matchAll(ARGUMENT)) names.add(name!);
  return names;
}

/** Escapes a value for the text of a body of `contentType`: XML and JSON texts keep their form. */
export function escapeFor(contentType: string): (text: string) => string {
  if (/[/+]xml\b/i.test(contentType))
    return (text) =>
      text.replace(
        /[&<>"']/g,
        (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!,
      );
  if (/[/+]json\b/i.test(contentType))
    return (text) => JSON.stringify(text.toWellFormed()).slice(1, -1);
  return (text) => text;
}
