/**
 * What an OpenAPI entry sets over its operation: its headers and its `api_key`'s, which replace the
 * operation's header and query parameters of their names. Pure: no Nest import.
 */
import { QUERY_VERBS } from '../http-request-builder.js';
import type { JsonSchema } from '../tool-definition.js';
import type { OperationTool } from './openapi-operation.js';

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
