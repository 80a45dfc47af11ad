import { Ajv } from 'ajv';
import type { ToolCallEvent } from '../llm/llm.types.js';
import { argumentProblem } from '../tools/argument-check.js';
import {
  DEFAULT_PARAMETERS,
  type JsonSchema,
  type ToolSnapshot,
} from '../tools/tool-definition.js';
import { resultText, toolErrors, truncateResult } from '../tools/tool-errors.js';
import { mistaken, type ToolCallContext, type ToolOutcome } from '../tools/tool-executor.js';
import { parametersProblem } from '../tools/parameters-schema.js';
import { MAX_JSON_DEPTH, nestedDeeper } from '../common/nesting.js';
import { TOOL_NAME_PATTERN } from '../tools/definition-schema.js';
import { describe } from '../tools/field-hints.js';
import { compiledOnUse } from '../common/compiled-on-use.js';
import { awaitAnswer } from './awaiting.js';
import type { TurnContext } from './turn-context.js';
import type { Session } from './session.js';

/**
 * A tool the client runs itself (open a screen, read the device's location, ask its own UI),
 * declared with `session.update`'s `client_tools`: the model is offered it like the engine's
 * tools, and a call goes to the client as `client_tool_call`, answered by `client_tool_result`.
 */
export interface ClientTool {
  name: string;
  description: string;
  parameters: JsonSchema;
  /** How long a call waits for the client's result; LLM_TOOL_TIMEOUT_SECS when absent. */
  timeout_secs?: number;
}

/** The client's answer for one call: `client_tool_result` with a `result` or an `error`. */
export type ClientReply = { result: unknown } | { error: string };

export const MAX_CLIENT_TOOLS = 64;

const validate = compiledOnUse<ClientTool>(() => new Ajv({ strict: false }), {
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', pattern: TOOL_NAME_PATTERN },
    description: { type: 'string', maxLength: 4000 },
    parameters: { type: 'object' },
    timeout_secs: { type: 'number', exclusiveMinimum: 0, maximum: 3600 },
  },
});

const HINTS: Record<string, string> = {
  name: 'letters, digits, "_" or "-" (1 to 64 characters)',
  description: 'a string of at most 4000 characters',
  parameters: 'a JSON Schema object',
  timeout_secs: 'a number of seconds, greater than 0 and at most 3600',
};

/**
 * The `client_tools` of a `session.update`, checked and with their defaults, or why they cannot
 * be taken: each a name (not one of `serverTools`, the engine's active tools), an optional
 * description, parameters (a JSON Schema) and timeout; no field besides these.
 */
export function readClientTools(
  input: unknown[],
  serverTools: readonly string[],
): { tools: ClientTool[] } | { error: string } {
  const tools: ClientTool[] = [];
  for (const [index, entry] of input.entries()) {
    const name = (entry as { name?: unknown } | null)?.name;
    const at = `client_tools[${index}]${typeof name === 'string' ? ` '${name}'` : ''}`;
    if (!validate(entry)) {
      const error = validate.errors![0]!;
      if (error.keyword === 'additionalProperties') {
        const field = (error.params as { additionalProperty: string }).additionalProperty;
        return {
          error: `${at}: unknown field '${field}': expected ${Object.keys(HINTS).join(', ')}`,
        };
      }
      if (error.instancePath === '' && error.keyword !== 'required')
        return { error: `${at}: expected an object` };
      const { field, why } = describe(error, HINTS);
      return { error: `${at}: field '${field}' ${why}` };
    }
    // The risks first: their walk stops at MAX_SCHEMA_DEPTH, where the schema check's would not.
    const problem =
      entry.parameters && (riskOf(entry.parameters) ?? parametersProblem(entry.parameters));
    if (problem) return { error: `${at}: field 'parameters' ${problem}` };
    if (serverTools.includes(entry.name))
      return { error: `${at}: the engine has a tool of that name; choose another name` };
    if (tools.some((t) => t.name === entry.name))
      return { error: `${at}: the name is given twice` };
    tools.push({
      name: entry.name,
      description: entry.description ?? '',
      parameters: entry.parameters ?? DEFAULT_PARAMETERS,
      ...(entry.timeout_secs !== undefined && { timeout_secs: entry.timeout_secs }),
    });
  }
  return { tools };
}

/** The largest `parameters` of a client tool, as JSON. */
const MAX_SCHEMA_CHARS = 16_384;
/** The deepest nesting of a client tool's `parameters` (objects and arrays). */
const MAX_SCHEMA_DEPTH = 32;
/** Keywords whose values are maps of names to schemas (the names are not keywords). */
const NAMED_SCHEMAS = new Set(['properties', 'definitions', '$defs', 'dependentSchemas']);

/**
 * Why a schema the client sent could harm the engine, if it could: it is checked against every
 * call's arguments on the engine's one JavaScript thread, so a `pattern` (a regular expression
 * that can take exponential time on text the model writes) or a huge schema would stall every
 * session. The engine's own tools, written by its operators, may use them.
 */
function riskOf(schema: JsonSchema): string | undefined {
  if (JSON.stringify(schema).length > MAX_SCHEMA_CHARS)
    return `is longer than ${MAX_SCHEMA_CHARS} characters of JSON`;
  const risky = (node: unknown, depth: number): string | undefined => {
    if (typeof node !== 'object' || node === null) return undefined; // a value is no level
    if (depth > MAX_SCHEMA_DEPTH) return 'depth';
    if (Array.isArray(node)) return node.map((n) => risky(n, depth + 1)).find(Boolean);
    for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
      if (key === 'pattern' || key === 'patternProperties') return key;
      const found =
        NAMED_SCHEMAS.has(key) && typeof value === 'object' && value !== null
          ? Object.values(value as Record<string, unknown>)
              .map((v) => risky(v, depth + 1))
              .find(Boolean)
          : risky(value, depth + 1);
      if (found) return found;
    }
    return undefined;
  };
  const keyword = risky(schema, 0);
  if (keyword === 'depth') return `is nested deeper than ${MAX_SCHEMA_DEPTH} levels`;
  return (
    keyword &&
    `uses '${keyword}', which tools of a client may not (a regular expression could stall the engine)`
  );
}

/** The reply a `client_tool_result` message carries (it has exactly one of `result` and `error`). */
export function replyOf(message: { result?: unknown; error?: string }): ClientReply {
  return message.error !== undefined ? { error: message.error } : { result: message.result };
}

/** What the model reads for the client's reply: its result (JSON unless text), or its error. */
export function replyOutcome(reply: ClientReply, maxChars: number): ToolOutcome {
  if ('error' in reply)
    return { ok: false, text: truncateResult(`Error: ${reply.error}`, maxChars) };
  if (nestedDeeper(reply.result, MAX_JSON_DEPTH))
    return {
      ok: false,
      text: `Error: the result is nested more than ${MAX_JSON_DEPTH} levels deep`,
    };
  const text = typeof reply.result === 'string' ? reply.result : JSON.stringify(reply.result);
  return { ok: true, text: resultText(text === '' ? '(empty result)' : text, maxChars) };
}

/**
 * What a code tool's `tools.<name>(…)` does for a name among the session's client tools: the
 * call goes to the client as `client_tool_call` (no `tool_call` before it: the model did not make
 * it) and the code gets the client's result, or the error text.
 */
export function clientToolCaller(
  ctx: TurnContext,
  limits: { timeoutSecs: number; resultMaxChars: number },
): NonNullable<ToolCallContext['callClientTool']> {
  return (id, name, args) => {
    const tool = ctx.clientTools.get(name);
    if (!tool) return undefined;
    const call: ToolCallEvent = {
      type: 'tool_call',
      id,
      name,
      arguments: args,
      rawArguments: JSON.stringify(args),
      argumentsValid: true,
    };
    return askClient(ctx, call, tool, limits).then(
      (outcome) => outcome ?? { ok: false, text: toolErrors.requestFailed('cancelled') },
    );
  };
}

/**
 * Hands a call of client tool `tool` to the client (`client_tool_call`) as soon as the model has
 * made it; resolves with what the model will read (undefined once the turn is cancelled or over),
 * which `runCalls` takes once the round is over (so a client may answer while the model is still
 * writing). Arguments that do not fit the tool's parameters are not sent: the model reads why, as
 * for the engine's tools.
 */
export function askClient(
  ctx: TurnContext,
  call: ToolCallEvent,
  tool: ClientTool,
  limits: { timeoutSecs: number; resultMaxChars: number },
): Promise<ToolOutcome | undefined> {
  if (!call.argumentsValid)
    return Promise.resolve(
      mistaken('invalid_arguments', toolErrors.notAnObject(call.rawArguments)),
    );
  const problem = argumentProblem(tool.parameters, call.arguments);
  if (problem)
    return Promise.resolve(mistaken('invalid_arguments', toolErrors.requestFailed(problem)));
  const timeoutSecs = tool.timeout_secs ?? limits.timeoutSecs;
  const waited = awaitAnswer(
    ctx.session.clientCalls,
    call.id,
    ctx.callSignal,
    timeoutSecs * 1000,
  ).then((waited): ToolOutcome | undefined => {
    if (waited === 'cancelled') return undefined;
    if (waited === 'expired')
      return {
        ok: false,
        text: toolErrors.requestFailed(`the client returned no result within ${timeoutSecs}s`),
      };
    return replyOutcome(waited.answer, limits.resultMaxChars);
  });
  ctx.emit({ type: 'client_tool_call', id: call.id, name: call.name, arguments: call.arguments });
  return waited;
}

/**
 * The session's own tools for a turn, as `client_tools` stand at its start: not one whose name the
 * engine's tools have taken since it was declared (the engine's tool is called).
 */
export function clientToolsOf(session: Session, snapshot: ToolSnapshot): Map<string, ClientTool> {
  const tools = session.settings.client_tools.filter((t) => !snapshot.byName.has(t.name));
  return new Map(tools.map((t) => [t.name, t]));
}
