import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { HANDOFF_DESCRIPTION } from '../handoff-tool.js';
import { ToolFieldsDto } from './tool-fields.dto.js';
import { ApiIgnoredArguments } from './end-session-tool-definition.dto.js';

/** The engine's own tool with which the model hands the conversation to another assistant. */
export class HandoffToolDefinitionDto extends ToolFieldsDto {
  @ApiProperty({
    enum: ['handoff'],
    description:
      "Run by the engine: from the next request on, in the same turn and the turns after (a resumed session's too), the system message holds the assistant's instructions (after LLM_SYSTEM_PROMPT, before the session's own) and only its tools are offered, until another handoff; the client gets a handoff event",
  })
  type!: 'handoff';

  @ApiProperty({
    description: 'Function name the model calls',
    example: 'to_billing',
    pattern: '^[A-Za-z0-9_-]{1,64}$',
  })
  name!: string;

  @ApiPropertyOptional({
    description: 'What the model reads to decide when to call it',
    default: HANDOFF_DESCRIPTION,
    example: 'Hand the user to billing for invoices, payments and refunds.',
  })
  description?: string;

  @ApiPropertyOptional({
    description:
      'The assistant\'s name, in the handoff event and what the model reads; default the tool\'s name less a to_ (handoff_to_, transfer_to_) before it, its underscores spaces: to_front_desk is "front desk"',
    example: 'billing',
    pattern: '^[A-Za-z0-9_ .-]{1,64}$',
  })
  agent?: string;

  @ApiPropertyOptional({
    description:
      "The assistant's instructions, put in the system message after LLM_SYSTEM_PROMPT; none (a handoff back to the engine's own assistant): the prompt alone",
    maxLength: 20000,
    example: 'You are the billing assistant: invoices, payments and refunds only.',
  })
  instructions?: string;

  @ApiPropertyOptional({
    description:
      "The voice the assistant speaks with in voice sessions (as TTS_VOICE, or a session's voice), from the sentence after the handoff on; default the session's: a caller hears that someone else took the call",
    minLength: 1,
    maxLength: 200,
    example: 'nova',
  })
  voice?: string;

  @ApiPropertyOptional({
    description:
      "The language the session goes on in from the handoff (its language setting, as session.update's: speech, transcription, the clock line), for an assistant of another language; it stays after a handoff back unless that one gives another. The handoff event says it",
    example: 'es',
    pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$',
  })
  language?: string;

  @ApiPropertyOptional({
    description:
      "The names of the set's tools the assistant may use (a handoff back among them, if it should have one); default every tool. Each must be a tool of the set, or start with the prefix of an MCP entry for a server's tools (any name, when such an entry has no prefix)",
    type: [String],
    example: ['get_invoice', 'to_front_desk'],
  })
  tools?: string[];

  @ApiPropertyOptional({
    description:
      "What the assistant says itself in voice sessions instead of the engine's settings, by name, as session.update's phrases (wait, still, still_here, hold, confirm, unclear, question_repeat, error, idle, idle_goodbye, time_limit_goodbye): each a phrase, a list said in turn, or an object of language codes and either. A session's own phrases come first",
    type: 'object',
    additionalProperties: true,
    example: { wait: ['Let me check your account.', 'One moment, please.'] },
  })
  phrases?: Record<string, unknown>;

  @ApiIgnoredArguments
  parameters?: Record<string, unknown>;
}
