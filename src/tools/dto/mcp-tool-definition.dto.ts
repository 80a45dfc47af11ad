import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ApiOAuth2, OAuth2Dto } from './oauth2.dto.js';
import { ToolFieldsDto } from './tool-fields.dto.js';

/** One tool of an MCP server (Streamable HTTP, or the older HTTP+SSE transport), called with tools/call. */
export class McpToolDefinitionDto extends ToolFieldsDto {
  @ApiProperty({ enum: ['mcp'], description: 'A tool of an MCP server' })
  type!: 'mcp';

  @ApiProperty({
    description: 'Function name the model calls',
    example: 'lookup_order',
    pattern: '^[A-Za-z0-9_-]{1,64}$',
  })
  name!: string;

  @ApiProperty({
    description:
      "The MCP server's endpoint: Streamable HTTP transport, or the URL of the event stream of a server of the older HTTP+SSE transport (used when the server refuses the first POST with HTTP 4xx other than 401/403); may hold ${TOOL_SECRET_…} secrets and ${session.NAME} variables, not {argument} placeholders (the arguments go to the server as they are)",
    example: 'https://crm.internal/mcp',
  })
  url!: string;

  @ApiPropertyOptional({
    description: "The tool's name on the server, when it differs from name (a name with dots, say)",
    example: 'orders.lookup',
  })
  tool?: string;

  @ApiPropertyOptional({
    description:
      'Headers sent with every request to the server (an Authorization token); values may hold ${TOOL_SECRET_…} secrets and ${session.NAME} variables',
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
      "At most this many calls of this tool run at once in the engine process; further calls wait their turn for at most the tool's timeout",
    minimum: 1,
    maximum: 10000,
    example: 4,
  })
  max_concurrency?: number;

  @ApiOAuth2
  oauth2?: OAuth2Dto;
}
