import { plainToInstance, type ClassConstructor } from 'class-transformer';
import { IsIn, IsNotEmpty, IsString, MaxLength, validateSync } from 'class-validator';

/** `{"type":"user_text","text":"…"}`: starts a turn (seed §8). */
export class UserTextMessage {
  @IsIn(['user_text'])
  type!: 'user_text';

  @IsString({ message: 'user_text needs a "text" string' })
  @IsNotEmpty({ message: 'user_text needs a non-empty "text"' })
  @MaxLength(100_000, { message: '"text" is longer than 100000 characters' })
  text!: string;
}

/** `{"type":"interrupt"}`: cancels the turn in progress. */
export class InterruptMessage {
  @IsIn(['interrupt'])
  type!: 'interrupt';
}

export type ClientMessage = UserTextMessage | InterruptMessage;

const TYPES = { user_text: UserTextMessage, interrupt: InterruptMessage } as const;

/** Parses and validates one text frame; returns the message or a human error. */
export function parseClientMessage(raw: string): { message: ClientMessage } | { error: string } {
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    return { error: 'malformed JSON: every message must be a JSON object with a "type"' };
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return { error: 'every message must be a JSON object with a "type"' };
  }
  const type = (data as { type?: unknown }).type;
  if (typeof type !== 'string' || !(type in TYPES)) {
    return {
      error: `unknown message type ${JSON.stringify(type ?? null)}: expected one of ${Object.keys(TYPES).join(', ')}`,
    };
  }
  const cls = TYPES[type as keyof typeof TYPES] as ClassConstructor<ClientMessage>;
  const instance = plainToInstance(cls, data);
  const errors = validateSync(instance);
  if (errors.length > 0) {
    const first = errors[0]!;
    return {
      error: Object.values(first.constraints ?? {})[0] ?? `invalid field "${first.property}"`,
    };
  }
  return { message: instance };
}
