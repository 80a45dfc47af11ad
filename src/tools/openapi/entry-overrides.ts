/**
 * What an OpenAPI entry sets over its operation: its headers and its `api_key`'s, which replace the
 * operation's header and query parameters of their names, and its `oauth2`. Pure: no Nest import.
 */
import { encodeText } from '../argument-text.js';
import { QUERY_VERBS } from '../http-request-builder.js';
import type { JsonSchema } from '../tool-definition.js';
import { ToolDefinitionError } from '../definition-error.js';
import type { OAuth2Input } from '../oauth2.js';
import type { OperationTool } from './openapi-operation.js';
import type { DeclaredKey } from './openapi-security.js';

/**
 * An operation's headers under those of its entry (its own `headers` and its `api_key`'s): a
 * header the entry sets, whatever its case, replaces the operation's. The header argument that
 * filled the operation's header is then neither sent nor, in the operation's parameters, offered.
 */
export function entryHeaders(
  made: OperationTool,
  ...over: (Record<string, string> | undefined)[]
): { headers: Record<string, string>; headerArguments: string[]; parameters: JsonSchema } {
  const given = Object.assign({}, ...over) as Record<string, string>;
  const taken = new Set(Object.keys(given).map((name) => name.toLowerCase()));
  const kept = Object.entries(made.headers).filter(([name]) => !taken.has(name.toLowerCase()));
  const headers = { ...Object.fromEntries(kept), ...given };
  const dropped = made.headerArguments.filter((name) => taken.has(name.toLowerCase()));
  return {
    headers,
    headerArguments: made.headerArguments.filter((name) => !dropped.includes(name)),
    parameters: withoutArguments(made.parameters, dropped),
  };
}

/**
 * The operation's query parameters among `names` (those its entry's `api_key` fills in the
 * query): they are neither offered nor sent by argument, so that the query holds each once
 * (Trello's `key` and `token`, both an apiKey scheme's and a declared query parameter).
 */
export function keyedQueryArguments(made: OperationTool, names: readonly string[]): string[] {
  const offered = (made.parameters as { properties?: Record<string, JsonSchema> }).properties ?? {};
  return names.filter(
    (name) =>
      made.queryArguments.includes(name) ||
      (QUERY_VERBS.has(made.method) &&
        Object.hasOwn(offered, name) &&
        !made.headerArguments.includes(name) &&
        !made.url.includes(`{${name}}`)),
  );
}

/** `parameters` without the arguments `dropped` names; the very schema when it names none. */
export function withoutArguments(parameters: JsonSchema, dropped: readonly string[]): JsonSchema {
  if (dropped.length === 0) return parameters;
  const { properties, required, ...rest } = parameters as {
    properties?: Record<string, JsonSchema>;
    required?: string[];
  };
  const left = required?.filter((name) => !dropped.includes(name)) ?? [];
  return {
    ...rest,
    properties: Object.fromEntries(
      Object.entries(properties ?? {}).filter(([name]) => !dropped.includes(name)),
    ),
    ...(left.length > 0 && { required: left }),
  };
}

/** A reference (`${TOOL_SECRET_…}`, `${session.…}`), kept as written in a URL: the engine encodes
 * the value it fills in. */
const REFERENCE = /(\$\{[^}]*\})/;

/**
 * The URL and headers that carry an entry's `api_key` where the operation's security says: an
 * apiKey scheme's query parameter, header or cookie, or HTTP bearer's Authorization. A string is
 * the one key its first requirement made of such schemes asks for; an object gives keys by scheme
 * name (a requirement asking for two together: an app id and an app key).
 */
export function withKey(
  made: OperationTool,
  apiKey: string | Record<string, string>,
  at: string,
): { url: string; headers: Record<string, string>; query: string[] } {
  const { required, all } = made.keys ?? { all: {} };
  let keys: [DeclaredKey, string][];
  if (typeof apiKey === 'string') {
    if (!required)
      throw new ToolDefinitionError(
        `${at}: field 'api_key' has nowhere to go: the operation's security declares no apiKey or HTTP bearer scheme (give 'headers')`,
      );
    if (required.length > 1)
      throw new ToolDefinitionError(
        `${at}: field 'api_key' is one key, and the operation's security asks for ${required.length} together (${required.map(([name]) => name).join(', ')}): give them by scheme name, {${required.map(([name]) => `"${name}": "…"`).join(', ')}}`,
      );
    keys = [[required[0]![1], apiKey]];
  } else {
    keys = Object.entries(apiKey).map(([scheme, value]) => {
      if (!Object.hasOwn(all, scheme))
        throw new ToolDefinitionError(
          `${at}: field 'api_key.${scheme}' names no apiKey or HTTP bearer scheme of the document (it has: ${Object.keys(all).join(', ') || 'none'})`,
        );
      return [all[scheme]!, value];
    });
  }
  let url = made.url;
  const headers: Record<string, string> = {};
  const query: string[] = [];
  for (const [place, value] of keys) {
    if (place.in === 'bearer') headers.Authorization = `Bearer ${value}`;
    else if (place.in === 'header') headers[place.name] = value;
    else if (place.in === 'cookie')
      headers.Cookie = [headers.Cookie, `${place.name}=${value}`].filter(Boolean).join('; ');
    else {
      url += `${url.includes('?') ? '&' : '?'}${encodeText(place.name)}=${inQuery(value)}`;
      query.push(place.name);
    }
  }
  return { url, headers, query };
}

/**
 * A key written out percent-encoded (braces too: no placeholder is read in a key); a reference
 * kept, the engine encoding the value it fills in.
 */
const inQuery = (key: string) =>
  key
    .split(REFERENCE)
    .map((part, i) => (i % 2 ? part : encodeText(part)))
    .join('');

/**
 * An entry's `oauth2` with what it leaves out (token_url, scope) from the client-credentials
 * flow the operation's security declares.
 */
export function withDeclaredFlow(
  oauth2: OAuth2Input,
  made: OperationTool,
  at: string,
): OAuth2Input {
  if (oauth2.token_url !== undefined) return oauth2;
  const declared = made.clientCredentials;
  if (!declared)
    throw new ToolDefinitionError(
      `${at}: field 'oauth2.token_url' is required: the operation's security declares no OAuth 2.0 clientCredentials flow to take it from`,
    );
  const scope = oauth2.scope ?? declared.scope;
  return { ...oauth2, token_url: declared.tokenUrl, ...(scope !== undefined && { scope }) };
}
