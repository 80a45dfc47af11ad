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
  if (dropped.length === 0)
    return { headers, headerArguments: made.headerArguments, parameters: made.parameters };
  const { properties, required, ...rest } = made.parameters as {
    properties: Record<string, JsonSchema>;
    required?: string[];
  };
  const left = required?.filter((name) => !dropped.includes(name)) ?? [];
  return {
    headers,
    headerArguments: made.headerArguments.filter((name) => !dropped.includes(name)),
    parameters: {
      ...rest,
      properties: Object.fromEntries(
        Object.entries(properties).filter(([name]) => !dropped.includes(name)),
      ),
      ...(left.length > 0 && { required: left }),
    },
  };
}
