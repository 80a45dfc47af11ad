import {
  encodeText,
  formBody,
  FORM_TYPE,
  placeholderText,
  queryPairs,
  styledPlaceholder,
} from './argument-text.js';
import { escapeFor, fillBody, wholeArgument } from './body-template.js';
import { MULTIPART_TYPE, multipartBody } from './multipart-body.js';
import { type PlaceholderStyle, type QueryStyle, type Tool } from './tool-definition.js';
import { HTTP_TOKEN, headerValueFault } from '../common/http-fields.js';
import { toolErrors } from './tool-errors.js';
import { SECRET_REFERENCE, VARIABLE_REFERENCE } from './tool-secrets.js';
import { wholeCharacters } from '../common/whole-characters.js';

/** Verbs whose remaining arguments go to the query string (seed §3); all others get a JSON body. */
export const QUERY_VERBS: ReadonlySet<string> = new Set([
  'GET',
  'HEAD',
  'OPTIONS',
  'TRACE',
  'DELETE',
]);

export interface BuiltRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** A request that cannot be sent: `error` is the text the model receives. */
export interface RefusedRequest {
  error: string;
}

/**
 * A `${TOOL_SECRET_*}` reference (validated at load), a `${session.NAME}` variable or an
 * `{argument}` placeholder. One pass: a value put in is never read again, so an argument can never
 * name a secret or a variable.
 */
const PLACEHOLDER = new RegExp(
  `${SECRET_REFERENCE.source}|${VARIABLE_REFERENCE.source}|\\{([A-Za-z0-9_.-]+)\\}`,
  'g',
);

class Refusal extends Error {}

interface Values {
  args: Record<string, unknown>;
  secrets: Record<string, string>;
  /** The session's variables (`session.update`'s `variables`). */
  variables: Record<string, string>;
  /** The arguments put in (they are not sent again). */
  consumed?: Set<string>;
  /** How array and object arguments are written in placeholders (`placeholder_styles`). */
  styles?: Record<string, PlaceholderStyle>;
}

function substitute(
  template: string,
  { args, secrets, variables, consumed, styles }: Values,
  encode: (text: string) => string,
): string {
  const replace = (whole: string, secret?: string, variable?: string, name: string = '') => {
    if (secret !== undefined) return encode(secrets[secret] ?? '');
    if (variable !== undefined) {
      if (!Object.hasOwn(variables, variable))
        throw new Refusal(
          `the session has no variable '${variable}' for ${whole} (the client sets it with session.update)`,
        );
      return encode(variables[variable]!);
    }
    if (!Object.hasOwn(args, name) || args[name] === undefined) {
      throw new Refusal(`missing argument '${name}' for placeholder ${whole}`);
    }
    consumed?.add(name);
    const style = styles && Object.hasOwn(styles, name) ? styles[name] : undefined;
    return style
      ? styledPlaceholder(name, args[name], style, encode)
      : placeholderText(args[name], encode);
  };
  return template.replace(PLACEHOLDER, replace);
}

/**
 * Fills the URL template. Each value is percent-encoded, so it can never change the scheme,
 * host, port or path structure; a value that would make a whole path segment `.` or `..` is
 * refused, because URL parsers resolve those (encoded or not) as dot segments.
 */
function buildUrl(template: string, values: Values): string {
  const match = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*)([^?#]*)(\?[^#]*)?(#.*)?$/.exec(template);
  if (!match) throw new Refusal('the tool url is not an absolute URL');
  const [, origin = '', path = '', query = '', fragment = ''] = match;
  const builtOrigin = substitute(origin, values, encodeText);
  const segments = path.split('/').map((segment) => {
    const filled = substitute(segment, values, encodeText);
    if (filled !== segment && /^(\.|%2e){1,2}$/i.test(filled)) {
      throw new Refusal(
        `argument value would make the path segment '${decodeURIComponent(filled)}'`,
      );
    }
    return filled;
  });
  const builtQuery = substitute(query, values, encodeText);
  const builtFragment = substitute(fragment, values, encodeText);
  return builtOrigin + segments.join('/') + builtQuery + builtFragment;
}

function appendQuery(
  url: string,
  rest: Record<string, unknown>,
  styles: Record<string, QueryStyle> = {},
): string {
  // Null is no value to send in a query (as Python's requests leaves None out), never "null".
  const pairs = Object.entries(rest)
    .filter(([, value]) => value !== undefined && value !== null)
    .flatMap(([key, value]) =>
      queryPairs(key, value, Object.hasOwn(styles, key) ? styles[key] : undefined),
    );
  if (pairs.length === 0) return url;
  const hash = url.indexOf('#');
  const base = hash === -1 ? url : url.slice(0, hash);
  const fragment = hash === -1 ? '' : url.slice(hash);
  const sep = base.includes('?') ? (base.endsWith('?') || base.endsWith('&') ? '' : '&') : '?';
  return base + sep + pairs.join('&') + fragment;
}

/**
 * The request of a tool with a `body` template: the body it makes (JSON; a form with a form
 * Content-Type; a text template as text, its values escaped for XML or JSON), whatever the verb.
 */
function templated(
  tool: Tool,
  url: string,
  headers: Record<string, string>,
  type: string | undefined,
  values: Values,
): BuiltRequest {
  const text = typeof tool.body === 'string';
  const whole = wholeArgument(tool.body);
  const given = whole === undefined ? undefined : values.args[whole];
  // A body that is one argument the model left out (an optional body): none, as for a key.
  if (whole !== undefined && (given === undefined || given === null))
    return bodiless(tool.method, url, headers);
  const contentType = type ?? (text ? 'text/plain; charset=utf-8' : 'application/json');
  if (type === undefined) headers['Content-Type'] = contentType;
  if (given !== undefined && /[/+]json\b/i.test(contentType))
    return { method: tool.method, url, headers, body: JSON.stringify(given, wholeCharacters) };
  // A text body that is one argument and nothing else: the model's text as it is, unescaped
  // (an XML document is no value to keep inside a template's structure).
  if (text && typeof given === 'string') return { method: tool.method, url, headers, body: given };
  const escape = text ? escapeFor(contentType) : (value: string) => value;
  const filled = fillBody(tool.body, {
    text: (template) => substitute(template, values, escape),
    argument: (name) => values.args[name],
  });
  if (typeof filled !== 'string' && MULTIPART_TYPE.test(contentType))
    return multipart(tool.method, url, headers, filled as Record<string, unknown>);
  const body =
    typeof filled === 'string'
      ? filled
      : FORM_TYPE.test(contentType)
        ? formBody(filled as Record<string, unknown>)
        : JSON.stringify(filled, wholeCharacters);
  return { method: tool.method, url, headers, body };
}

/** A request without a body: without a Content-Type either, whoever set one. */
function bodiless(method: string, url: string, headers: Record<string, string>): BuiltRequest {
  const kept = Object.entries(headers).filter(([k]) => k.toLowerCase() !== 'content-type');
  return { method, url, headers: Object.fromEntries(kept) };
}

/** A multipart request: its Content-Type (whatever case the tool wrote it in) takes the boundary. */
function multipart(
  method: string,
  url: string,
  headers: Record<string, string>,
  fields: Record<string, unknown>,
): BuiltRequest {
  const key = Object.keys(headers).find((k) => k.toLowerCase() === 'content-type')!;
  const { body, contentType } = multipartBody(fields, headers[key]);
  return { method, url, headers: { ...headers, [key]: contentType }, body };
}

/** Whether `template` names one of `optional` (`header_arguments`) that the model did not give. */
function namesMissing(
  template: string,
  optional: string[],
  args: Record<string, unknown>,
): boolean {
  return optional.some(
    (name) =>
      (!Object.hasOwn(args, name) || args[name] === undefined || args[name] === null) &&
      template.includes(`{${name}}`),
  );
}

/** Builds the HTTP request for one call of an HTTP tool (seed §3), or the error text to return. */
export function buildHttpRequest(
  tool: Tool,
  args: Record<string, unknown>,
  variables: Record<string, string> = {},
): BuiltRequest | RefusedRequest {
  if (!HTTP_TOKEN.test(tool.method)) {
    return { error: toolErrors.invalidMethod(tool.raw.method ?? tool.method, tool.name) };
  }
  try {
    const consumed = new Set<string>();
    const values = { args, secrets: tool.secrets, variables, styles: tool.placeholderStyles };
    const url = buildUrl(tool.url, { ...values, consumed });
    const headers: Record<string, string> = {};
    const headerArgs = tool.headerArguments ?? [];
    for (const name of headerArgs) consumed.add(name);
    for (const [key, template] of Object.entries(tool.headers)) {
      if (headerArgs.length > 0 && namesMissing(template, headerArgs, args)) continue;
      const value = substitute(template, values, (text) => text);
      const fault = headerValueFault(value);
      if (fault) throw new Refusal(`header '${key}' value contains ${fault}`);
      headers[key] = value;
    }
    const type = Object.entries(headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1];
    // `query_arguments` go to the query whatever the verb; the rest where the verb sends them.
    const inQuery = new Set(tool.queryArguments);
    const given = Object.entries(args).filter(([key]) => !consumed.has(key));
    const queried = Object.fromEntries(given.filter(([key]) => inQuery.has(key)));
    const withQuery = appendQuery(url, queried, tool.queryStyles);
    // An empty body template: the request has none (a POST whose arguments all go in its URL).
    if (tool.body === '') return bodiless(tool.method, withQuery, headers);
    if (tool.body !== undefined) return templated(tool, withQuery, headers, type, values);
    const rest = Object.fromEntries(given.filter(([key]) => !inQuery.has(key)));
    if (QUERY_VERBS.has(tool.method)) {
      return { method: tool.method, url: appendQuery(withQuery, rest, tool.queryStyles), headers };
    }
    if (type !== undefined && MULTIPART_TYPE.test(type))
      return multipart(tool.method, withQuery, headers, rest);
    if (type === undefined) headers['Content-Type'] = 'application/json';
    const body =
      type !== undefined && FORM_TYPE.test(type)
        ? formBody(rest)
        : JSON.stringify(rest, wholeCharacters);
    return { method: tool.method, url: withQuery, headers, body };
  } catch (error) {
    if (error instanceof Refusal) return { error: toolErrors.requestFailed(error.message) };
    throw error;
  }
}
