import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { END_SESSION_DESCRIPTION } from '../end-session-tool.js';
import { ToolFieldsDto } from './tool-fields.dto.js';

/** The arguments of an engine's own tool that reads none (they are in the `tool_call` event). */
export const ApiIgnoredArguments = ApiPropertyOptional({
  description:
    'JSON Schema of the arguments (a "reason", say: the engine ignores them; they are in the tool_call event); default {"type":"object","properties":{}}',
  type: 'object',
  additionalProperties: true,
});

/** The engine's own tool with which the model ends the conversation (hangs up the call). */
export class EndSessionToolDefinitionDto extends ToolFieldsDto {
  @ApiProperty({
    enum: ['end_session'],
    description:
      'Run by the engine: the session ends once the turn whose answer called it has been given whole (its goodbye said), with close code 4004, and cannot be resumed; /twilio hangs up the call once Twilio has played the goodbye. A turn the user cuts short goes on instead',
  })
  type!: 'end_session';

  @ApiProperty({
    description: 'Function name the model calls',
    example: 'hang_up_call',
    pattern: '^[A-Za-z0-9_-]{1,64}$',
  })
  name!: string;

  @ApiPropertyOptional({
    description: 'What the model reads to decide when to call it',
    default: END_SESSION_DESCRIPTION,
  })
  description?: string;

  @ApiIgnoredArguments
  parameters?: Record<string, unknown>;
}
