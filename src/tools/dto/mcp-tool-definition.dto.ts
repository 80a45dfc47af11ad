import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ApiRateLimit, RateLimitDto } from './rate-limit.dto.js';
import { ApiOAuth2, OAuth2Dto } from './oauth2.dto.js';
import { ToolFieldsDto } from './tool-fields.dto.js';

/**
 * One tool of an MCP server (Streamable HTTP, the older HTTP+SSE transport, or a program the engine
 * runs and speaks to over stdio), called with tools/call.
 */
export class McpToolDefinitionDto extends ToolFieldsDto {
  @ApiProperty({ enum: ['mcp'], description: 'A tool of an MCP server' })
  type!: 'mcp';

  @ApiPropertyOptional({
    description:
      'Function name the model calls; required, unless the entry is for several tools of the server (tools)',
    example: 'lookup_order',
    pattern: '^[A-Za-z0-9_-]{1,64}$',
  })
  name?: string;

  @ApiPropertyOptional({
    description:
      'Instead of name: the entry stands for tools of the server, "*" for every tool it lists, or the names it lists them by; each becomes a tool of the set (named prefix + its name, its description and schema as listed, the entry\'s other fields for all of them) when the tools are loaded, and is shown so by GET /api/tools. A tool the set has an entry of its own for (its name, or the same tool of the same server), or that an entry for tools before this one made, is left to that entry. Not with name, tool, description or parameters, nor with session variables in url or headers',
    oneOf: [
      { type: 'string', enum: ['*'] },
      { type: 'array', items: { type: 'string' } },
    ],
    example: '*',
  })
  tools?: '*' | string[];

  @ApiPropertyOptional({
    description:
      "With tools: put before each tool's name (other characters than letters, digits, _ and - become _; a name is cut to 64 characters, and _2, _3 … tell apart two that come out the same)",
    pattern: '^[A-Za-z0-9_-]{1,48}$',
    example: 'crm_',
  })
  prefix?: string;

  @ApiPropertyOptional({
    description:
      'With "tools": "*": only the tools the server marks read-only (readOnlyHint: true), for an assistant that may look things up and change nothing; those it lists later too, as it marks them',
    example: true,
  })
  read_only?: boolean;

  @ApiPropertyOptional({
    description:
      'With "tools": "*": the tools left out, by the names the server lists them by (its account deletion, say); a name it does not list leaves nothing out',
    type: [String],
    example: ['delete_customer'],
  })
  exclude?: string[];

  @ApiPropertyOptional({
    description:
      "The MCP server's endpoint (give url or command): Streamable HTTP transport, or the URL of the event stream of a server of the older HTTP+SSE transport (used when the server refuses the first POST with HTTP 4xx other than 401/403); may hold ${TOOL_SECRET_…} secrets and ${session.NAME} variables, not {argument} placeholders (the arguments go to the server as they are)",
    example: 'https://crm.internal/mcp',
  })
  url?: string;

  @ApiPropertyOptional({
    description:
      'A program the engine runs as the MCP server, spoken to over its standard input and output (stdio), instead of a url. Declared in the tools file: over the API a set may keep a command the tools file declares, exactly as it writes it (with its args, env and cwd), and no other',
    example: 'uvx',
  })
  command?: string;

  @ApiPropertyOptional({
    description: "The command's arguments; may hold ${TOOL_SECRET_…} secrets",
    type: [String],
    example: ['mcp-server-time', '--local-timezone=Europe/Rome'],
  })
  args?: string[];

  @ApiPropertyOptional({
    description:
      "Environment variables of the command's process, over PATH, HOME, LOGNAME, SHELL, TERM and USER (none of the engine's own); values may hold ${TOOL_SECRET_…} secrets",
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { CRM_API_KEY: '${TOOL_SECRET_CRM_KEY}' },
  })
  env?: Record<string, string>;

  @ApiPropertyOptional({
    description:
      "The command's working directory, relative to the tools file; default the tools file's directory",
    example: 'servers/crm',
  })
  cwd?: string;

  @ApiPropertyOptional({
    description: "The tool's name on the server, when it differs from name (a name with dots, say)",
    example: 'orders.lookup',
  })
  tool?: string;

  @ApiPropertyOptional({
    description:
      'Headers sent with every request to a server at a url (an Authorization token); values may hold ${TOOL_SECRET_…} secrets and ${session.NAME} variables',
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { Authorization: 'Bearer ${TOOL_SECRET_CRM_TOKEN}' },
  })
  headers?: Record<string, string>;

  @ApiPropertyOptional({
    description:
      'What the model reads to decide whether and when to call the tool; default the description the server lists',
  })
  description?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description:
      'JSON Schema of the arguments; default the inputSchema the server lists. Give it and description to load the tool without reaching the server (required with session variables in url or headers)',
  })
  parameters?: Record<string, unknown>;

  @ApiPropertyOptional({
    description: 'Timeout of one call in seconds; default LLM_TOOL_TIMEOUT_SECS',
    example: 10,
  })
  timeout_secs?: number;

  @ApiPropertyOptional({
    description:
      "Whether a call changes nothing, so that it may start as soon as the model has written it (LLM_TOOL_EARLY_START); default the server's readOnlyHint when it lists the tool, else false",
    example: true,
  })
  safe?: boolean;

  @ApiPropertyOptional({
    description:
      "At most this many calls of this tool run at once, across the engine; further calls wait their turn for at most the tool's timeout",
    minimum: 1,
    maximum: 10000,
    example: 4,
  })
  max_concurrency?: number;

  @ApiPropertyOptional({
    description:
      "Each session of the engine calls the server on a connection of its own (an MCP session; its own process, for a command), opened at the session's first call and closed when the session ends (SESSION_RESUME_SECS after its connection closed, at most SESSION_TOOLS_KEEP_SECS; at once when it cannot be resumed): for servers that keep state for their client (a browser, a cart, a login). Default false: one connection, shared by every session",
    example: true,
  })
  per_session?: boolean;

  @ApiPropertyOptional({
    description:
      "With per_session: at most this many sessions hold a connection of their own to the server at once, in each engine process (a browser each, a process each); a further session's call is refused with an error the model reads, until one of them ends",
    minimum: 1,
    maximum: 10000,
    example: 20,
  })
  max_sessions?: number;

  @ApiPropertyOptional({
    description:
      "The server may ask the engine's model for completions while it runs a call (MCP sampling, `sampling/createMessage`: a summary, a classification, a draft), answered by LLM_BASE_URL's model without streaming, without tools, in text; the time it takes is the call's (timeout_secs). Default false: the engine does not offer sampling, and a server that needs it fails its call",
    example: true,
  })
  sampling?: boolean;

  @ApiPropertyOptional({
    description:
      'With sampling: the longest completion a server gets, in tokens (less if it asks less). Default 1024',
    minimum: 1,
    maximum: 32768,
    example: 512,
  })
  sampling_max_tokens?: number;

  @ApiRateLimit
  rate_limit?: RateLimitDto;

  @ApiOAuth2
  oauth2?: OAuth2Dto;
}
