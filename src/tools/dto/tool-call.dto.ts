import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** `POST /api/tools/{name}/call`: a call as the model would make it. */
export class ToolCallRequestDto {
  @ApiPropertyOptional({
    description:
      "The call's arguments, checked and typed by the tool's parameters as the model's are; default {}",
    example: { city: 'Rome' },
  })
  arguments?: Record<string, unknown>;

  @ApiPropertyOptional({
    description:
      "Session variables for the call (`${session.NAME}` in HTTP tools, context.variables in code tools), as a client's session.update gives them",
    example: { customer_id: 'C-42' },
  })
  variables?: Record<string, string>;

  @ApiPropertyOptional({
    description:
      "A name for a run of tries: tries naming the same one share the connections of `per_session` MCP tools (a browser an earlier try opened, a cart it filled), kept until 5 minutes after its last try. Without it, each try has a session of its own, ended with it. 1 to 64 letters, digits, '_', '.', ':', '-'",
    example: 'checkout-test',
    pattern: '^[A-Za-z0-9_.:-]{1,64}$',
  })
  session?: string;
}

export class ToolCallResponseDto {
  @ApiProperty({ description: 'false when the model would read an error text', example: true })
  ok!: boolean;

  @ApiProperty({
    description:
      'What the model would read: the result, cut and filtered as for the model, or the error text',
    example: 'Rome: ☀️ +21°C',
  })
  result!: string;

  @ApiProperty({ description: 'How long the call took, in milliseconds', example: 142 })
  ms!: number;

  @ApiPropertyOptional({
    description: "The result of an earlier identical request (the tool's cache_secs)",
    example: true,
  })
  cached?: boolean;

  @ApiPropertyOptional({
    description: 'Code tools: what the code printed',
    example: 'looked up C-42',
  })
  logs?: string;

  @ApiPropertyOptional({
    type: () => [ToolCallProgressDto],
    description:
      "How far the call said it had got while it ran (an MCP server's progress notifications, a code tool's context.report_progress), in order: what a WebSocket client gets as tool_progress, every update (the first 99 and the last)",
  })
  progress?: ToolCallProgressDto[];
}

/** One progress update of a tried call. */
export class ToolCallProgressDto {
  @ApiProperty({ description: "When it came, in milliseconds from the call's start", example: 610 })
  ms!: number;

  @ApiPropertyOptional({ description: 'How far the call has got', example: 2 })
  progress?: number;

  @ApiPropertyOptional({ description: 'What progress counts to, when known', example: 5 })
  total?: number;

  @ApiPropertyOptional({
    description: 'One line for people, up to 300 characters, secrets masked',
    example: 'Checked Lufthansa',
  })
  message?: string;
}

/** A tool as the model is offered it (the `function` of the completion request's `tools`). */
export class OfferedToolDto {
  @ApiProperty({ example: 'get_weather' })
  name!: string;

  @ApiProperty({
    description:
      "What the model reads: the definition's description, or the one made for it (a code tool's docstring, an MCP server's list, an OpenAPI operation's summary)",
    example: 'Current weather of a city.',
  })
  description!: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'The JSON Schema of its arguments, as given or as made for it',
    example: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  })
  parameters!: Record<string, unknown>;
}
