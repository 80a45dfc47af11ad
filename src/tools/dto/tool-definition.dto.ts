import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ApiRateLimit, RateLimitDto } from './rate-limit.dto.js';
import { ApiOAuth2, OAuth2Dto } from './oauth2.dto.js';
import { CodeToolDefinitionDto } from './code-tool-definition.dto.js';
import { McpToolDefinitionDto } from './mcp-tool-definition.dto.js';
import { ToolFieldsDto } from './tool-fields.dto.js';
import type { OpenApiToolDefinitionDto } from './openapi-tool-definition.dto.js';
import { EndSessionToolDefinitionDto } from './end-session-tool-definition.dto.js';
import { TransferCallToolDefinitionDto } from './transfer-call-tool-definition.dto.js';
import { HandoffToolDefinitionDto } from './handoff-tool-definition.dto.js';
import { ToolSearchToolDefinitionDto } from './tool-search-tool-definition.dto.js';

export {
  CodeToolDefinitionDto,
  EndSessionToolDefinitionDto,
  HandoffToolDefinitionDto,
  McpToolDefinitionDto,
  ToolSearchToolDefinitionDto,
  TransferCallToolDefinitionDto,
};

/** Any one tool definition: HTTP, code (or callback), MCP, OpenAPI, the engine's own four. */
export type AnyToolDefinitionDto =
  | ToolDefinitionDto
  | CodeToolDefinitionDto
  | McpToolDefinitionDto
  | OpenApiToolDefinitionDto
  | EndSessionToolDefinitionDto
  | TransferCallToolDefinitionDto
  | HandoffToolDefinitionDto
  | ToolSearchToolDefinitionDto;
/** Its schema in Swagger. */
export const ANY_DEFINITION_SCHEMA = {
  oneOf: [
    { $ref: '#/components/schemas/ToolDefinitionDto' },
    { $ref: '#/components/schemas/CodeToolDefinitionDto' },
    { $ref: '#/components/schemas/McpToolDefinitionDto' },
    { $ref: '#/components/schemas/OpenApiToolDefinitionDto' },
    { $ref: '#/components/schemas/EndSessionToolDefinitionDto' },
    { $ref: '#/components/schemas/TransferCallToolDefinitionDto' },
    { $ref: '#/components/schemas/HandoffToolDefinitionDto' },
    { $ref: '#/components/schemas/ToolSearchToolDefinitionDto' },
  ],
};

/** Swagger description of one tool definition (the tools-file format, seed §3). */
export class ToolDefinitionDto extends ToolFieldsDto {
  @ApiPropertyOptional({
    enum: ['http'],
    description:
      "An HTTP tool (the default when absent): said, it keeps a definition with an MCP server's url from matching this schema too",
  })
  type?: 'http';

  @ApiProperty({
    description: 'Function name the model calls',
    example: 'get_weather',
    pattern: '^[A-Za-z0-9_-]{1,64}$',
  })
  name!: string;

  @ApiPropertyOptional({
    description: 'What the model reads to decide whether and when to call the tool',
    example: 'Current weather of a city. Call it whenever the user asks about the weather.',
  })
  description?: string;

  @ApiPropertyOptional({
    description: 'JSON Schema of the arguments; default {"type":"object","properties":{}}',
    type: 'object',
    additionalProperties: true,
    example: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  })
  parameters?: Record<string, unknown>;

  @ApiProperty({
    description:
      'Absolute http(s) URL; {argument} placeholders are filled (percent-encoded) from the call',
    example: 'https://wttr.in/{city}?format=3',
  })
  url!: string;

  @ApiPropertyOptional({
    description:
      'Any HTTP verb, case-insensitive (GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS, TRACE, custom such as PURGE). ' +
      'Remaining arguments go to the query for GET/HEAD/OPTIONS/TRACE/DELETE, else to a JSON body.',
    default: 'POST',
    example: 'GET',
  })
  method?: string;

  @ApiPropertyOptional({
    description:
      'Headers sent as written; values may hold {argument} placeholders. With Content-Type application/x-www-form-urlencoded, the arguments left for the body are sent as a form (arrays repeating their key, objects in brackets) instead of JSON',
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { Authorization: 'Bearer {token}' },
  })
  headers?: Record<string, string>;

  @ApiPropertyOptional({
    description:
      'Timeout of one request of this tool in seconds, connect to last byte; default LLM_TOOL_TIMEOUT_SECS',
    example: 5,
  })
  timeout_secs?: number;

  @ApiPropertyOptional({
    description:
      'Further attempts of a request that failed transiently (refused or dropped connection, HTTP 429, 502, 503, 504), whatever the method: for a backend that takes the same request twice safely. Default LLM_TOOL_RETRIES, for safe tools only (see "safe"; a refused connection for any tool)',
    minimum: 0,
    maximum: 5,
    example: 2,
  })
  retries?: number;

  @ApiPropertyOptional({
    description:
      'JMESPath expression picking what the model reads of a JSON response (2xx), e.g. current_condition[0].{temp: temp_C, sky: weatherDesc[0].value}; the selection is sent as JSON (a string as it is). A body that is not JSON, or a query that fails or selects nothing, leaves the whole body',
    minLength: 1,
    maxLength: 2000,
    example: 'items[].{id: id, name: name}',
  })
  response_query?: string;

  @ApiPropertyOptional({
    description:
      "JMESPath expression finding the error in a JSON response a service answers with HTTP 2xx (GraphQL's errors, JSON-RPC's error, success false): when it selects something true (not null, false, an empty string, list or object), the call failed and the model reads Error: HTTP 200 OK — and the selection (a plain true: the whole body), as for an HTTP error; such a call is not cached, retried, or counted against max_calls_per_session. A body that is not JSON, or a query that fails on it, stands as given",
    minLength: 1,
    maxLength: 2000,
    example: 'errors[0].message',
  })
  error_query?: string;

  @ApiPropertyOptional({
    description:
      'Whether a request of this tool changes nothing on its backend; default true for GET, HEAD, OPTIONS and TRACE, false otherwise. A safe tool starts as soon as the model has written the call (LLM_TOOL_EARLY_START) and is retried after a dropped connection or an overload (LLM_TOOL_RETRIES): true for a read-only POST (a search, a GraphQL query), false for a GET that acts',
    example: true,
  })
  safe?: boolean;

  @ApiPropertyOptional({
    description:
      'Seconds for which the result of a request answers the same request (method, URL, headers, body) of this tool, in every session of the process, without sending it: for data that changes slowly (store hours, a catalogue, the weather). Only 2xx results are kept; the tool_result event says "cached": true. Only for a tool whose requests change nothing (see "safe")',
    minimum: 0,
    exclusiveMinimum: true,
    maximum: 86400,
    example: 300,
  })
  cache_secs?: number;

  @ApiPropertyOptional({
    description:
      "A header the engine sets on each request of this tool to a key unique to the call (a UUID), the same on its retries, for a backend that acts once per key (Stripe-style Idempotency-Key). Its transient failures are then retried whatever the method (LLM_TOOL_RETRIES, or the tool's retries)",
    example: 'Idempotency-Key',
  })
  idempotency_header?: string;

  @ApiPropertyOptional({
    description:
      'How an array or object argument that goes to the query is written, by argument, as OpenAPI 3 writes a query parameter of that style: "form" (exploded by default: ids=3&ids=4, an object\'s properties as their own pairs; not exploded: ids=3,4), "spaceDelimited" (ids=3%204), "pipeDelimited" (ids=3%7C4) or "deepObject" (color[R]=100&color[G]=200). Without it, such an argument is sent as JSON text. An OpenAPI tool takes it from its operation\'s parameters',
    type: 'object',
    additionalProperties: {
      type: 'object',
      required: ['style'],
      properties: {
        style: { enum: ['form', 'spaceDelimited', 'pipeDelimited', 'deepObject'] },
        explode: { type: 'boolean', description: 'Default: true for "form", false otherwise' },
      },
    },
    example: { ids: { style: 'form', explode: false } },
  })
  query_styles?: Record<string, { style: string; explode?: boolean }>;

  @ApiPropertyOptional({
    description:
      "Arguments sent in the query string whatever the verb, when the model gives them (a POST's ?dry_run=true); the others go where the verb sends them. An OpenAPI tool takes them from the query parameters of an operation whose verb sends a body",
    type: [String],
    example: ['dry_run'],
  })
  query_arguments?: string[];

  @ApiPropertyOptional({
    description:
      "Arguments sent only in the headers whose {placeholders} name them, not in the query or body; a header naming one the model did not give is left out (an optional Accept-Language). An OpenAPI tool takes them from its operation's header parameters",
    type: [String],
    example: ['language'],
  })
  header_arguments?: string[];

  @ApiPropertyOptional({
    description:
      'How an array or object argument put into a {placeholder} of the url or a header is written, by argument, as OpenAPI 3 writes a path parameter of that style: "simple" (3,4; an object R,100,G,200, exploded R=100,G=200), "label" (.3,4; exploded .3.4) or "matrix" (;ids=3,4; exploded ;ids=3;ids=4, an object ;R=100;G=200). Without it, a list of plain values is joined by commas and an object is JSON text. An OpenAPI tool takes it from its operation\'s path and header parameters',
    type: 'object',
    additionalProperties: {
      type: 'object',
      required: ['style'],
      properties: {
        style: { enum: ['simple', 'label', 'matrix'] },
        explode: { type: 'boolean', description: 'Default: false' },
      },
    },
    example: { color: { style: 'simple', explode: true } },
  })
  placeholder_styles?: Record<string, { style: string; explode?: boolean }>;

  @ApiPropertyOptional({
    description:
      'The request body as the backend wants it, sent whatever the method (not GET, HEAD or TRACE) in place of the arguments: JSON (a form with a form Content-Type), or a text (XML, a text; Content-Type text/plain unless headers set one). A string that is one {argument} becomes its value as given (a number, an object), left out, key or item, when the model gave none; other strings are filled as text, with ${TOOL_SECRET_…} secrets and ${session.NAME} variables. Values in a text body are escaped for XML or JSON by its Content-Type',
    oneOf: [{ type: 'object' }, { type: 'array' }, { type: 'string' }],
    example: {
      fields: {
        project: { key: 'OPS' },
        summary: '{summary}',
        labels: ['voice', '{label}'],
      },
    },
  })
  body?: unknown;

  @ApiPropertyOptional({
    description:
      "The certificate and key this tool's requests show a server that asks for a client certificate (mutual TLS): PEM files, relative to the tools file, checked to be a pair when the tools are loaded and read again when they change (with LLM_TOOLS_FILE_WATCH_SECS). An encrypted key takes its passphrase, written out or as a ${TOOL_SECRET_…}",
    type: 'object',
    required: ['cert_file', 'key_file'],
    properties: {
      cert_file: { type: 'string', example: 'certs/voice-agent.pem' },
      key_file: { type: 'string', example: 'certs/voice-agent.key' },
      passphrase: { type: 'string', example: '${TOOL_SECRET_CRM_KEY_PASS}' },
    },
  })
  client_certificate?: { cert_file: string; key_file: string; passphrase?: string };

  @ApiPropertyOptional({
    description:
      "At most this many calls of this tool run at once, whatever the sessions, across the engine (its processes, and the replicas sharing a Redis session store): for a backend that takes only so many requests at a time. Further calls wait their turn, first come first served, for at most the tool's timeout (then the model reads that the call was not sent)",
    minimum: 1,
    maximum: 10000,
    example: 4,
  })
  max_concurrency?: number;

  @ApiRateLimit
  rate_limit?: RateLimitDto;

  @ApiOAuth2
  oauth2?: OAuth2Dto;
}

export class ToolsResponseDto {
  @ApiProperty({ example: true })
  ok!: boolean;

  @ApiProperty({ description: 'Number of active tools', example: 1 })
  count!: number;

  @ApiProperty({
    description:
      'Where the active definitions come from: the tools file, a POST /api/tools override, or none',
    enum: ['file', 'request', 'none'],
    example: 'file',
  })
  source!: 'file' | 'request' | 'none';

  @ApiProperty({
    description: 'The active definitions, in tools-file format',
    type: 'array',
    items: ANY_DEFINITION_SCHEMA,
  })
  tools!: AnyToolDefinitionDto[];

  @ApiPropertyOptional({
    description:
      'A dry run (?dry_run=true): count, source and tools are the set the change would make; nothing was installed',
    example: true,
  })
  dry_run?: boolean;

  @ApiPropertyOptional({
    description:
      "What loading these definitions warned of, as the engine's log says it (when there is something): an OpenAPI operation, or an argument of one, left out; a tool an MCP server lists as MCP does not allow, left out of an entry for its tools; a handoff's assistant given deferred tools but no search; …. The set is in force (or, in a dry run, would be) all the same",
    type: [String],
    example: [
      "request body: tool #1: deprecated operations are left out (list them in 'operations' to take them): emptyCart",
    ],
  })
  warnings?: string[];
}

export class ToolsErrorDto {
  @ApiProperty({ example: false })
  ok!: boolean;

  @ApiProperty({ example: 400 })
  statusCode!: number;

  @ApiProperty({
    description: 'Why the request was refused',
    example:
      "request body: tool #0 'get_weather': field 'url' is required: expected an absolute http:// or https:// URL",
  })
  message!: string;
}
