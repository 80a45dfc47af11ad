import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsString, Matches, MaxLength } from 'class-validator';
import { Optional } from '../../common/optional-field.js';
import { dtoOf, firstViolation } from './dto-body.js';
import type { ErrorCode } from '../protocol/error-codes.js';
import { SessionDoneDto } from './sessions.dto.js';

/** The longest note an administrator may add (a client's is SESSION_INSTRUCTIONS_MAX_CHARS). */
export const ADMIN_NOTE_MAX_CHARS = 20_000;

/** `POST /api/sessions/{id}/notes`: what the application knows and the user did not say. */
export class NoteDto {
  @ApiProperty({
    description: `What the model is told, as a user message marked as not the user's words: 1 to ${ADMIN_NOTE_MAX_CHARS} characters, not only spaces`,
    example: 'The payment of 42 EUR went through.',
  })
  @IsString({ message: '"text" must be a string' })
  @Matches(/\S/, { message: '"text" must not be empty (more than spaces)' })
  @MaxLength(ADMIN_NOTE_MAX_CHARS, {
    message: `"text" is longer than ${ADMIN_NOTE_MAX_CHARS} characters`,
  })
  text!: string;

  @ApiPropertyOptional({
    description:
      "true: a turn of its own answers it at once (once the turn in progress has ended and the user is not speaking); false (the default): the model reads it with the user's next words",
    example: false,
  })
  @Optional()
  @IsBoolean({ message: '"respond" must be true or false' })
  respond?: boolean;
}

const FIELDS = new Set(['text', 'respond']);

/** The note `body` asks for, or why it is none. */
export function readNote(body: unknown): NoteDto | string {
  const note = dtoOf(NoteDto, FIELDS, body, 'a note: {"text": "…", "respond": false}');
  if (typeof note === 'string') return note;
  if (note.text === undefined) return '"text" is required: what the model is told';
  return firstViolation(note) ?? note;
}

export class NoteAddedDto extends SessionDoneDto {
  @ApiProperty({
    description:
      "The note is the model's: in the history now, or once the turn in progress has ended (before the next one)",
    example: true,
  })
  added!: true;

  @ApiProperty({ description: 'A turn of its own answers it', example: false })
  respond!: boolean;
}

/** What the process holding the session answers: the note added, or why not (an error's code). */
export type NoteAnswer = NoteAddedDto | { ok: false; refused: ErrorCode; error: string };
