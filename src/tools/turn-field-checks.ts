/**
 * The fields of a tool definition that say how its calls join a turn — `background` (the turn
 * goes on without the result), `at_start` (the engine makes the call before the model's first
 * request), `user_given` (arguments the model may only pass on from the user) — checked against
 * the kind of tool and one another. Pure: no Nest import.
 */
import { ToolDefinitionError } from './definition-error.js';
import type { ToolDefinitionInput } from './tool-definition.js';

/** Kinds of tool whose work is part of the turn itself, never run in the background. */
const NOT_IN_BACKGROUND = new Set([
  'callback',
  'end_session',
  'transfer_call',
  'handoff',
  'tool_search',
]);

/** Refuses, naming the tool (`at`) and the field, what a definition's turn fields cannot be. */
export function turnFieldChecks(entry: ToolDefinitionInput, at: string): void {
  const type = entry.type ?? 'http';
  if (entry.background === true && NOT_IN_BACKGROUND.has(type))
    throw new ToolDefinitionError(
      `${at}: field 'background' is only for tools whose result the model reads, not for type "${type}", whose work belongs to its turn`,
    );
  if (entry.at_start === true) atStartChecks(entry, at);
  if (entry.user_given) userGivenChecks(entry, at);
}

/**
 * A tool the engine calls itself before the model's first request (`at_start`): one whose result
 * the model reads, called with no arguments, at once (no approval: the user has said nothing yet).
 */
function atStartChecks(entry: ToolDefinitionInput, at: string): void {
  const type = entry.type ?? 'http';
  const conflict = (['confirm', 'background', 'deferred'] as const).find(
    (field) => entry[field] !== undefined && entry[field] !== false,
  );
  const required = (entry.parameters as { required?: unknown } | undefined)?.required;
  const why =
    NOT_IN_BACKGROUND.has(type) || type === 'mcp'
      ? `is for HTTP, OpenAPI and code tools, not for type "${type}"`
      : conflict
        ? `cannot go with '${conflict}': the engine makes the call before the user has said anything`
        : Array.isArray(required) && required.length > 0
          ? `needs a tool that takes no required argument: the engine calls it with none (its 'parameters' require ${required.map((r) => JSON.stringify(r)).join(', ')})`
          : undefined;
  if (why) throw new ToolDefinitionError(`${at}: field 'at_start' ${why}`);
}

/** `user_given`: arguments of the tool's parameters (when it declares them), of a tool the model calls. */
function userGivenChecks(entry: ToolDefinitionInput, at: string): void {
  const type = entry.type ?? 'http';
  if (type === 'callback')
    throw new ToolDefinitionError(`${at}: field 'user_given' is for tools the model calls`);
  const properties = (entry.parameters as { properties?: object } | undefined)?.properties;
  const unknown = properties && entry.user_given!.find((name) => !Object.hasOwn(properties, name));
  if (unknown !== undefined)
    throw new ToolDefinitionError(
      `${at}: field 'user_given' names '${unknown}', which is not one of its parameters (${Object.keys(properties!).join(', ') || 'none'})`,
    );
}
