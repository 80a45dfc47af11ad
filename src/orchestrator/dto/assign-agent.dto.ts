import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength, ValidateIf } from 'class-validator';
import { dtoOf, firstViolation } from './dto-body.js';
import { SessionDoneDto } from './sessions.dto.js';

/** `POST /api/sessions/{id}/agent`: the assistant an administrator gives an open session to. */
export class AssignAgentDto {
  @ApiProperty({
    description:
      "The assistant (a handoff tool's, by its agent name or the tool's name), whatever SESSION_AGENTS lets clients choose; null: the engine's own",
    example: 'billing',
    nullable: true,
    type: String,
  })
  @ValidateIf((_, value) => value !== null)
  @MaxLength(64, { message: '"agent" is longer than 64 characters' })
  @IsString({ message: '"agent" must be the name of an assistant, or null for the engine\'s own' })
  agent!: string | null;
}

const FIELDS = new Set(['agent']);

/** The assistant `body` names, or why it names none. */
export function readAssignAgent(body: unknown): AssignAgentDto | string {
  const read = dtoOf(AssignAgentDto, FIELDS, body, 'an assistant: {"agent": "billing"}');
  if (typeof read === 'string') return read;
  if (read.agent === undefined)
    return '"agent" is required: the assistant\'s name, or null for the engine\'s own';
  return firstViolation(read) ?? read;
}

export class AgentAssignedDto extends SessionDoneDto {
  @ApiProperty({
    description:
      "The assistant that holds the session from its next request on (null: the engine's own); its client got session.updated",
    example: 'billing',
    nullable: true,
    type: String,
  })
  agent!: string | null;
}

/** What the process holding the session answers: the assistant given, or why not. */
export type AgentAnswer = AgentAssignedDto | { ok: false; error: string };
