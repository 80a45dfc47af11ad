import { Ajv, type ErrorObject } from 'ajv';
import { closest, distance } from 'fastest-levenshtein';
import { compiledOnUse } from '../common/compiled-on-use.js';
import type { ToolDefinitionInput } from './tool-definition.js';

/** The shape of a tool definition (tools file, `POST /api/tools`), checked before anything else. */
let shared: Ajv | undefined;
export const ajv = () =>
  (shared ??= new Ajv({ allErrors: false, strict: false, validateSchema: false }));
/** A tool name as the OpenAI API takes it: HTTP tools', and the tools a client declares. */
export const TOOL_NAME_PATTERN = '^[A-Za-z0-9_-]{1,64}$';
/** A language tag (`en`, `pt-BR`): a `wait_phrase`'s keys, a handoff's `language`. */
export const LANGUAGE_TAG_PATTERN = '^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$';
export const common = {
  description: { type: 'string' },
  parameters: { type: 'object' },
  modalities: { type: 'array', items: { enum: ['voice', 'text'] }, minItems: 1 },
  confirm: { type: 'boolean' },
  confirm_prompt: { type: 'string', minLength: 1, maxLength: 500 },
  background: { type: 'boolean' },
  max_calls_per_session: { type: 'integer', minimum: 1, maximum: 1000 },
  repeatable: { type: 'boolean' },
  untrusted: { type: 'boolean' },
  result_max_chars: { type: 'integer', minimum: 1, maximum: 10_000_000 },
  wait_phrase: {
    anyOf: [
      { type: 'string', minLength: 1, maxLength: 200 },
      {
        type: 'object',
        minProperties: 1,
        propertyNames: { pattern: LANGUAGE_TAG_PATTERN },
        additionalProperties: { type: 'string', minLength: 1, maxLength: 200 },
      },
    ],
  },
};

/** A style of OpenAPI 3 (`style` of `styles`, `explode`) for each argument named. */
function stylesByArgument(styles: string[]) {
  return {
    type: 'object',
    additionalProperties: {
      type: 'object',
      required: ['style'],
      additionalProperties: false,
      properties: { style: { enum: styles }, explode: { type: 'boolean' } },
    },
  };
}

/** A phone number in E.164 (`+15550100`), or a SIP address (`sip:desk@pbx.example.com`). */
export const DESTINATION_PATTERN = '^(\\+[1-9][0-9]{1,14}|sips?:[^\\s<>"]{1,500})$';
const URL_PATTERN = '^[Hh][Tt][Tt][Pp][Ss]?://[^/?#\\s]+';
/** OAuth 2.0 client credentials: where the tool's bearer token comes from. */
const oauth2 = {
  type: 'object',
  required: ['token_url', 'client_id', 'client_secret'],
  additionalProperties: false,
  properties: {
    token_url: { type: 'string', pattern: URL_PATTERN },
    client_id: { type: 'string', minLength: 1 },
    client_secret: { type: 'string', minLength: 1 },
    scope: { type: 'string', minLength: 1 },
    audience: { type: 'string', minLength: 1 },
    client_auth: { enum: ['basic', 'body'] },
  },
};
/** The fields of a tool that sends requests to a service: HTTP and MCP tools. */
const requestFields = {
  ...common,
  name: { type: 'string', pattern: TOOL_NAME_PATTERN },
  headers: { type: 'object', additionalProperties: { type: 'string' } },
  timeout_secs: { type: 'number', exclusiveMinimum: 0, maximum: 3600 },
  safe: { type: 'boolean' },
  // Approval asked unless the tool is safe: its method, `safe`, an MCP server's marks.
  confirm: { anyOf: [{ type: 'boolean' }, { const: 'destructive' }] },
  max_concurrency: { type: 'integer', minimum: 1, maximum: 10_000 },
  rate_limit: {
    type: 'object',
    required: ['calls', 'per_secs'],
    additionalProperties: false,
    properties: {
      calls: { type: 'integer', minimum: 1, maximum: 100_000 },
      per_secs: { type: 'integer', minimum: 1, maximum: 86_400 },
      group: { type: 'string', pattern: '^[A-Za-z0-9_.:-]{1,64}$' },
    },
  },
  oauth2,
};
/** A list of argument names, each once (`query_arguments`, `header_arguments`). */
const argumentNames = {
  type: 'array',
  items: { type: 'string', minLength: 1, maxLength: 200 },
  uniqueItems: true,
};

/** The fields of an HTTP tool but its request's target (which an OpenAPI operation gives). */
const httpFields = {
  ...requestFields,
  retries: { type: 'integer', minimum: 0, maximum: 5 },
  response_query: { type: 'string', minLength: 1, maxLength: 2000 },
  cache_secs: { type: 'number', exclusiveMinimum: 0, maximum: 86_400 },
  idempotency_header: { type: 'string', pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$" },
  client_certificate: {
    type: 'object',
    required: ['cert_file', 'key_file'],
    additionalProperties: false,
    properties: {
      cert_file: { type: 'string', minLength: 1 },
      key_file: { type: 'string', minLength: 1 },
      passphrase: { type: 'string', minLength: 1 },
    },
  },
  query_styles: stylesByArgument(['form', 'spaceDelimited', 'pipeDelimited', 'deepObject']),
  query_arguments: argumentNames,
  header_arguments: argumentNames,
  placeholder_styles: stylesByArgument(['simple', 'label', 'matrix']),
};
export const HTTP_SCHEMA = {
  type: 'object',
  required: ['name', 'url'],
  properties: {
    ...httpFields,
    type: { const: 'http' },
    url: { type: 'string', pattern: URL_PATTERN },
    method: { type: 'string', minLength: 1 },
    body: { type: ['object', 'array', 'string'] },
  },
} as const;
export const validateHttp = compiledOnUse<ToolDefinitionInput>(ajv, HTTP_SCHEMA);
/** An HTTP tool made from an operation of an OpenAPI 3 document. */
export const OPENAPI_SCHEMA = {
  type: 'object',
  required: ['type', 'spec', 'operation'],
  properties: {
    ...httpFields,
    type: { const: 'openapi' },
    // token_url (and scope) may come from the operation's security (a clientCredentials flow).
    oauth2: { ...oauth2, required: ['client_id', 'client_secret'] },
    spec: { type: 'string', minLength: 1 },
    operation: { type: 'string', minLength: 1, maxLength: 2000 },
    base_url: { type: 'string', pattern: URL_PATTERN },
    // One key, or keys by scheme name (minLength applies to a string, the rest to an object).
    api_key: {
      type: ['string', 'object'],
      minLength: 1,
      maxLength: 8192,
      minProperties: 1,
      additionalProperties: { type: 'string', minLength: 1, maxLength: 8192 },
    },
  },
} as const;
export const validateOpenApi = compiledOnUse<ToolDefinitionInput>(ajv, OPENAPI_SCHEMA);
/**
 * An MCP tool: one tool of an MCP server, called with `tools/call`: at a `url` (Streamable HTTP or
 * HTTP+SSE), or a `command` the engine runs (stdio).
 */
export const MCP_SCHEMA = {
  type: 'object',
  // `name`, unless `tools` (see mcp-definition.ts).
  required: ['type'],
  properties: {
    ...requestFields,
    type: { const: 'mcp' },
    url: { type: 'string', pattern: URL_PATTERN },
    tool: { type: 'string', minLength: 1, maxLength: 128 },
    command: { type: 'string', minLength: 1, maxLength: 4096 },
    args: { type: 'array', items: { type: 'string', maxLength: 4096 }, maxItems: 256 },
    env: {
      type: 'object',
      propertyNames: { pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
      additionalProperties: { type: 'string' },
    },
    cwd: { type: 'string', minLength: 1 },
    per_session: { type: 'boolean' },
    max_sessions: { type: 'integer', minimum: 1, maximum: 10000 },
    sampling: { type: 'boolean' },
    sampling_max_tokens: { type: 'integer', minimum: 1, maximum: 32768 },
    tools: {
      anyOf: [
        { const: '*' },
        {
          type: 'array',
          items: { type: 'string', minLength: 1, maxLength: 128 },
          minItems: 1,
          maxItems: 1000,
          uniqueItems: true,
        },
      ],
    },
    prefix: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,48}$' },
  },
} as const;
export const validateMcp = compiledOnUse<ToolDefinitionInput>(ajv, MCP_SCHEMA);
export const CODE_SCHEMA = {
  type: 'object',
  required: ['type'],
  properties: {
    ...common,
    type: { enum: ['python', 'callback'] },
    name: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]{0,63}$' },
    code: { type: 'string', minLength: 1 },
    file: { type: 'string', minLength: 1 },
    timeout_secs: { type: 'number', exclusiveMinimum: 0, maximum: 3600 },
    // Its code changes nothing: not held after an untrusted read (untrusted-reads.ts).
    safe: { type: 'boolean' },
  },
} as const;
export const validateCode = compiledOnUse<ToolDefinitionInput>(ajv, CODE_SCHEMA);
/**
 * The fields of `entry` its kind does not know (a misspelt `client_certifcate` would otherwise go
 * unnoticed), each with the known field it is likely meant for. Fields starting with `_` or `x-`
 * are the writer's own (comments, extensions) and are let be.
 */
export function unknownFields(
  entry: object,
  schema: { properties: object },
): { field: string; meant?: string }[] {
  const known = Object.keys(schema.properties);
  return Object.keys(entry)
    .filter((field) => !known.includes(field) && !/^(_|x-)/i.test(field))
    .map((field) => {
      // `timeout` for `timeout_secs`; else a spelling a few letters off.
      const longer = known.find((k) => k.startsWith(`${field}_`));
      const near = closest(field, known);
      const meant =
        longer ?? (distance(field, near) <= Math.max(2, Math.floor(field.length / 4)) ? near : '');
      return meant ? { field, meant } : { field };
    });
}

export const FIELD_HINTS: Record<string, string> = {
  name: 'a string of letters, digits, "_" or "-" (1 to 64 characters)',
  url: 'an absolute http:// or https:// URL',
  description: 'a string',
  parameters: 'a JSON Schema object',
  method: 'a non-empty string',
  headers: 'an object whose values are strings',
  type: '"http", "python", "callback", "mcp", "openapi", "end_session", "transfer_call" or "handoff"',
  to: 'a phone number in E.164 form ("+15550100") or a SIP address ("sip:desk@pbx.example.com")',
  destinations:
    'an object of names (letters, digits, spaces, "_", "-") and phone numbers in E.164 form or SIP addresses, 1 to 100 of them',
  spec: 'a path to an OpenAPI 3 document (JSON or YAML), relative to the tools file, or its http(s) URL',
  operation: 'an operationId, or "METHOD /path" as the document writes the path',
  base_url: 'an absolute http:// or https:// URL',
  tool: "the tool's name on the MCP server (1 to 128 characters)",
  command: 'the program that runs the MCP server (1 to 4096 characters)',
  args: "an array of strings: the command's arguments",
  env: 'an object of environment variable names and string values',
  cwd: 'a directory, relative to the tools file',
  code: 'a non-empty string of Python code',
  file: 'a path to a .py file, relative to the tools file',
  timeout_secs: 'a number of seconds greater than 0',
  retries: 'an integer from 0 to 5',
  response_query: 'a JMESPath expression of 1 to 2000 characters',
  safe: 'true or false',
  cache_secs: 'a number of seconds greater than 0, at most 86400',
  idempotency_header: 'a header name, e.g. "Idempotency-Key"',
  query_styles:
    'an object of argument names and {"style": "form", "spaceDelimited", "pipeDelimited" or "deepObject", "explode": true or false}',
  placeholder_styles:
    'an object of argument names and {"style": "simple", "label" or "matrix", "explode": true or false}',
  query_arguments: 'a list of argument names, each once',
  header_arguments: 'a list of argument names, each once',
  max_concurrency: 'an integer from 1 to 10000',
  rate_limit:
    'an object with calls (an integer from 1 to 100000) and per_secs (an integer of seconds from 1 to 86400), e.g. {"calls": 10, "per_secs": 1}, and optionally group (1 to 64 letters, digits, _ . : -)',
  client_certificate:
    'an object with cert_file and key_file (PEM files, relative to the tools file), and passphrase for an encrypted key',
  body: 'the request body: an object or array (JSON, or a form), or a text, with {argument} places',
  oauth2:
    'an object with token_url (an http(s) URL), client_id and client_secret, and optionally scope, audience and client_auth ("basic" or "body")',
  result_max_chars: 'an integer from 1 to 10000000',
  wait_phrase:
    'a phrase of 1 to 200 characters, or an object of language codes and phrases ({"en":"Let me look.","it":"Controllo."})',
  modalities: 'a non-empty array of "voice" and/or "text"',
  confirm: 'true or false (HTTP, OpenAPI and MCP tools: also "destructive")',
  confirm_prompt: 'a question of 1 to 500 characters, with {parameter} placeholders',
  background: 'true or false',
  max_calls_per_session: 'an integer from 1 to 1000',
  repeatable: 'true or false',
  untrusted: 'true or false',
  per_session: 'true or false',
  max_sessions: 'an integer from 1 to 10000',
  sampling: 'true or false',
  sampling_max_tokens: 'an integer from 1 to 32768',
  tools:
    '"*" (every tool the MCP server lists) or an array of the names it lists them by, each once',
  agent: 'a name of 1 to 64 letters, digits, spaces, "_", "." or "-"',
  instructions: 'a string of at most 20000 characters',
  voice: "a voice of the TTS engine (TTS_VOICE's kind), 1 to 200 characters",
  language: 'a language code such as en, it, es or pt-br',
  prefix: 'letters, digits, "_" or "-", 1 to 48, put before the names of the tools',
};

/**
 * A field and why it failed, from Ajv's first error, for a message naming the field; `hints`
 * say what each field expects (a tool definition's by default).
 */
export function describe(
  error: ErrorObject,
  hints: Record<string, string> = FIELD_HINTS,
): { field: string; why: string } {
  const path = error.instancePath.split('/').filter(Boolean);
  const top = path[0] ?? '';
  if (error.keyword === 'required') {
    const missing = String((error.params as { missingProperty: string }).missingProperty);
    // Inside an object field (`oauth2`), the hint is the object's.
    const field = [...path, missing].join('.');
    return {
      field,
      why: `is required: expected ${hints[path.length ? top : missing] ?? 'a value'}`,
    };
  }
  const hint = top === 'headers' && path.length > 1 ? 'a string' : (hints[top] ?? error.message);
  return { field: path.join('.'), why: `is invalid: expected ${hint}` };
}
