import { Ajv } from 'ajv';
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
/** A `wait_phrase`: one phrase, or several said in turn (1 to 20). */
export const PHRASE = { type: 'string', minLength: 1, maxLength: 200 };
export const PHRASE_LIST = { type: 'array', items: PHRASE, minItems: 1, maxItems: 20 };
/** A list of argument names, each once (`query_arguments`, `header_arguments`, `user_given`). */
const argumentNames = {
  type: 'array',
  items: { type: 'string', minLength: 1, maxLength: 200 },
  uniqueItems: true,
};

export const common = {
  description: { type: 'string' },
  parameters: { type: 'object' },
  modalities: { type: 'array', items: { enum: ['voice', 'text'] }, minItems: 1 },
  confirm: { type: 'boolean' },
  confirm_prompt: { type: 'string', minLength: 1, maxLength: 500 },
  background: { type: 'boolean' },
  at_start: { type: 'boolean' },
  user_given: { ...argumentNames, minItems: 1, maxItems: 100 },
  max_calls_per_session: { type: 'integer', minimum: 1, maximum: 1000 },
  repeatable: { type: 'boolean' },
  untrusted: { type: 'boolean' },
  deferred: { type: 'boolean' },
  keywords: {
    type: 'array',
    items: { type: 'string', minLength: 1, maxLength: 200 },
    minItems: 1,
    maxItems: 100,
  },
  result_max_chars: { type: 'integer', minimum: 1, maximum: 10_000_000 },
  wait_phrase: {
    anyOf: [
      PHRASE,
      PHRASE_LIST,
      {
        type: 'object',
        minProperties: 1,
        propertyNames: { pattern: LANGUAGE_TAG_PATTERN },
        additionalProperties: { anyOf: [PHRASE, PHRASE_LIST] },
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
/** The fields of an HTTP tool but its request's target (which an OpenAPI operation gives). */
const httpFields = {
  ...requestFields,
  retries: { type: 'integer', minimum: 0, maximum: 5 },
  response_query: { type: 'string', minLength: 1, maxLength: 2000 },
  error_query: { type: 'string', minLength: 1, maxLength: 2000 },
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
/** What an entry for several tools (an MCP server's, an OpenAPI document's) stands for: all, or names. */
const allOrSome = (maxLength: number) =>
  ({
    anyOf: [
      { const: '*' },
      {
        type: 'array',
        items: { type: 'string', minLength: 1, maxLength },
        minItems: 1,
        maxItems: 1000,
        uniqueItems: true,
      },
    ],
  }) as const;
/** Those an entry for all of a server's tools, or of a document's operations, leaves out. */
const EXCLUDE = {
  type: 'array',
  items: { type: 'string', minLength: 1, maxLength: 2000 },
  minItems: 1,
  maxItems: 1000,
  uniqueItems: true,
} as const;
/** Put before the names of the tools an entry for several makes. */
const PREFIX = { type: 'string', pattern: '^[A-Za-z0-9_-]{1,48}$' } as const;
/** An HTTP tool made from an operation of an OpenAPI 3 document. */
export const OPENAPI_SCHEMA = {
  type: 'object',
  // `operation`, unless `operations` (see openapi-operations.ts).
  required: ['type', 'spec'],
  properties: {
    ...httpFields,
    type: { const: 'openapi' },
    operations: allOrSome(2000),
    prefix: PREFIX,
    exclude: EXCLUDE,
    tags: {
      type: 'array',
      items: { type: 'string', minLength: 1, maxLength: 200 },
      minItems: 1,
      maxItems: 100,
    },
    methods: {
      type: 'array',
      items: { enum: ['GET', 'HEAD', 'OPTIONS', 'TRACE', 'POST', 'PUT', 'PATCH', 'DELETE'] },
      minItems: 1,
      uniqueItems: true,
    },
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
    tools: allOrSome(128),
    prefix: PREFIX,
    read_only: { type: 'boolean' },
    exclude: EXCLUDE,
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
