import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { DESTINATION_PATTERN } from '../definition-schema.js';
import { TRANSFER_DESCRIPTION } from '../transfer-call-tool.js';
import { ToolFieldsDto } from './tool-fields.dto.js';

/** The engine's own tool with which the model hands the call over to a person. */
export class TransferCallToolDefinitionDto extends ToolFieldsDto {
  @ApiProperty({
    enum: ['transfer_call'],
    description:
      'Run by the engine: once the turn whose answer called it has been given whole, the client gets {"type":"transfer","to":…} and the session ends (close code 4005, not resumable); /twilio transfers the call itself through Twilio\'s REST API (TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN). A turn the user cuts short goes on instead',
  })
  type!: 'transfer_call';

  @ApiProperty({
    description: 'Function name the model calls',
    example: 'transfer_to_person',
    pattern: '^[A-Za-z0-9_-]{1,64}$',
  })
  name!: string;

  @ApiPropertyOptional({
    description:
      'Where every call goes: a phone number in E.164 form or a SIP address (give this or "destinations")',
    pattern: DESTINATION_PATTERN,
    example: '+15550100',
  })
  to?: string;

  @ApiPropertyOptional({
    description:
      'Where a call may go, by name (give this or "to"): the model chooses a name (its parameters become {"destination": one of the names}) and never reads the numbers',
    type: 'object',
    additionalProperties: { type: 'string', pattern: DESTINATION_PATTERN },
    example: { sales: '+15550100', support: 'sip:support@pbx.example.com' },
  })
  destinations?: Record<string, string>;

  @ApiPropertyOptional({
    description: 'What the model reads to decide when to call it',
    default: TRANSFER_DESCRIPTION,
  })
  description?: string;

  @ApiPropertyOptional({
    description:
      'With "to": JSON Schema of the arguments (a "reason", say: the engine ignores them); default {"type":"object","properties":{}}',
    type: 'object',
    additionalProperties: true,
  })
  parameters?: Record<string, unknown>;
}
