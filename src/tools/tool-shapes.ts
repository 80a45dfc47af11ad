/**
 * The shapes of the engine's own tools (`end_session`, `transfer_call`, `handoff`, `tool_search`), and which
 * shape a definition of each `type` is checked against. Pure: no Nest import.
 */
import { compiledOnUse } from '../common/compiled-on-use.js';
import {
  ajv,
  CODE_SCHEMA,
  common,
  DESTINATION_PATTERN,
  HTTP_SCHEMA,
  MCP_SCHEMA,
  TOOL_NAME_PATTERN,
  validateCode,
  validateHttp,
  validateMcp,
  LANGUAGE_TAG_PATTERN,
} from './definition-schema.js';
import { FIELD_HINTS } from './field-hints.js';
import type { ToolDefinitionInput } from './tool-definition.js';

/** The engine's own tool that ends the session (hangs up the call) once the turn is over. */
export const END_SESSION_SCHEMA = {
  type: 'object',
  required: ['type', 'name'],
  properties: {
    ...common,
    type: { const: 'end_session' },
    name: { type: 'string', pattern: TOOL_NAME_PATTERN },
  },
} as const;
export const validateEndSession = compiledOnUse<ToolDefinitionInput>(ajv, END_SESSION_SCHEMA);
/** The engine's own tool that hands the call over to a person (`to`, or `destinations` by name). */
export const TRANSFER_CALL_SCHEMA = {
  type: 'object',
  required: ['type', 'name'],
  properties: {
    ...END_SESSION_SCHEMA.properties,
    type: { const: 'transfer_call' },
    to: { type: 'string', pattern: DESTINATION_PATTERN },
    destinations: {
      type: 'object',
      minProperties: 1,
      maxProperties: 100,
      propertyNames: { pattern: '^[A-Za-z0-9_ -]{1,64}$' },
      additionalProperties: { type: 'string', pattern: DESTINATION_PATTERN },
    },
  },
} as const;
export const validateTransferCall = compiledOnUse<ToolDefinitionInput>(ajv, TRANSFER_CALL_SCHEMA);
/**
 * The engine's own tool that hands the conversation to another assistant: its `instructions`
 * and the `tools` it may use from then on.
 */
export const HANDOFF_SCHEMA = {
  type: 'object',
  required: ['type', 'name'],
  properties: {
    ...END_SESSION_SCHEMA.properties,
    type: { const: 'handoff' },
    agent: { type: 'string', pattern: '^[A-Za-z0-9_ .-]{1,64}$' },
    instructions: { type: 'string', maxLength: 20_000 },
    voice: { type: 'string', minLength: 1, maxLength: 200 },
    language: { type: 'string', pattern: LANGUAGE_TAG_PATTERN },
    // (Each phrase checked by readNamedPhrases, naming it.)
    phrases: { type: 'object' },
    tools: {
      type: 'array',
      maxItems: 1000,
      uniqueItems: true,
      items: { type: 'string', pattern: TOOL_NAME_PATTERN },
    },
  },
} as const;
export const validateHandoff = compiledOnUse<ToolDefinitionInput>(ajv, HANDOFF_SCHEMA);
/** The engine's own tool with which the model finds the set's `deferred` tools. */
export const TOOL_SEARCH_SCHEMA = {
  type: 'object',
  required: ['type', 'name'],
  properties: {
    ...END_SESSION_SCHEMA.properties,
    type: { const: 'tool_search' },
    max_results: { type: 'integer', minimum: 1, maximum: 20 },
    prefetch: { type: 'integer', minimum: 0, maximum: 10 },
  },
} as const;
export const validateToolSearch = compiledOnUse<ToolDefinitionInput>(ajv, TOOL_SEARCH_SCHEMA);
/** What a handoff's fields expect, where they differ from other tools' (`tools`). */
const HANDOFF_HINTS = {
  ...FIELD_HINTS,
  tools: "an array of the names of the set's tools the assistant may use, each once",
};

/** The check of a definition of `type`, and the fields its kind has (an HTTP tool's by default). */
export function shapeOf(type: unknown): {
  validate: typeof validateHttp;
  schema: { properties: object };
  /** What its fields expect, for an error naming one (`describe`); default FIELD_HINTS. */
  hints?: Record<string, string>;
} {
  if (type === 'python' || type === 'callback')
    return { validate: validateCode, schema: CODE_SCHEMA };
  if (type === 'mcp') return { validate: validateMcp, schema: MCP_SCHEMA };
  if (type === 'end_session') return { validate: validateEndSession, schema: END_SESSION_SCHEMA };
  if (type === 'transfer_call')
    return { validate: validateTransferCall, schema: TRANSFER_CALL_SCHEMA };
  if (type === 'handoff')
    return { validate: validateHandoff, schema: HANDOFF_SCHEMA, hints: HANDOFF_HINTS };
  if (type === 'tool_search') return { validate: validateToolSearch, schema: TOOL_SEARCH_SCHEMA };
  return { validate: validateHttp, schema: HTTP_SCHEMA };
}
