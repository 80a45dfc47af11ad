import {
  IsBase64,
  IsBoolean,
  IsIn,
  IsString,
  Matches,
  MaxLength,
  validateSync,
} from 'class-validator';
import { Optional } from '../../common/optional-field.js';
import { SessionUpdateMessage, SETTINGS } from './session-update-message.js';
import {
  ClientToolResultMessage,
  ToolAnswerMessage,
  ToolConfirmMessage,
} from './answer-messages.js';
import { MAX_JSON_DEPTH, textNestedDeeper } from '../../common/nesting.js';

export { ClientToolResultMessage, SessionUpdateMessage, ToolAnswerMessage, ToolConfirmMessage };

/** `{"type":"user_text","text":"…"}`: starts a turn (seed §8). */
export class UserTextMessage {
  @IsIn(['user_text'])
  type!: 'user_text';

  @IsString({ message: 'user_text needs a "text" string' })
  @Matches(/\S/, { message: 'user_text needs a non-empty "text" (more than spaces)' })
  @MaxLength(100_000, { message: '"text" is longer than 100000 characters' })
  text!: string;
}

/**
 * `{"type":"say","text":"…"}`: the agent says the text as it is (a greeting when a call connects,
 * a goodbye), with no request to the model; it is part of the conversation from then on.
 */
export class SayMessage {
  @IsIn(['say'])
  type!: 'say';

  @IsString({ message: 'say needs a "text" string' })
  @Matches(/\S/, { message: 'say needs a non-empty "text" (more than spaces)' })
  @MaxLength(10_000, { message: '"text" is longer than 10000 characters' })
  text!: string;

  /**
   * false: the user's voice and keys do not cut it (a notice that must be heard whole); what
   * they say or type meanwhile is answered once it is over. An `interrupt` still stops it.
   */
  @Optional()
  @IsBoolean({ message: '"interruptible" must be true or false' })
  interruptible?: boolean;
}

/**
 * `{"type":"note","text":"…","respond":false}`: what the application knows and the user did not
 * say, for the model to read (see notes.ts); `respond`: a turn of its own answers it.
 */
export class NoteMessage {
  @IsIn(['note'])
  type!: 'note';

  @IsString({ message: 'note needs a "text" string' })
  @Matches(/\S/, { message: 'note needs a non-empty "text" (more than spaces)' })
  text!: string;

  @Optional()
  @IsBoolean({ message: '"respond" must be true or false' })
  respond?: boolean;
}

/** `{"type":"interrupt"}`: cancels the turn in progress (and its audio). */
export class InterruptMessage {
  @IsIn(['interrupt'])
  type!: 'interrupt';
}

/** `{"type":"history"}`: answered with the conversation as the user saw it (see seen-history.ts). */
export class HistoryMessage {
  @IsIn(['history'])
  type!: 'history';
}

/** `{"type":"ping","id":"…"}`: answered at once with `pong` (browsers cannot send WebSocket pings). */
export class PingMessage {
  @IsIn(['ping'])
  type!: 'ping';

  @Optional()
  @IsString({ message: '"id" must be a string' })
  @MaxLength(200, { message: '"id" is longer than 200 characters' })
  id?: string;
}

/** `{"type":"audio","data":"<base64 PCM s16le 16 kHz mono>"}`: a piece of the user's utterance. */
export class AudioMessage {
  @IsIn(['audio'])
  type!: 'audio';

  @IsString({ message: 'audio needs a base64 "data" string' })
  @IsBase64(undefined, { message: 'audio "data" is not valid base64' })
  data!: string;
}

/**
 * `{"type":"dtmf","digits":"1"}`: keys pressed on the caller's phone (a telephony gateway relays
 * them as DTMF), gathered into one entry that the model is given as the user's turn.
 */
export class DtmfMessage {
  @IsIn(['dtmf'])
  type!: 'dtmf';

  @IsString({ message: 'dtmf needs a "digits" string' })
  @Matches(/^[0-9*#A-D]{1,64}$/, {
    message: '"digits" must be 1 to 64 of the keys 0-9, *, #, A-D',
  })
  digits!: string;
}

/** `{"type":"audio_end"}`: the utterance is complete; it is transcribed and answered. */
export class AudioEndMessage {
  @IsIn(['audio_end'])
  type!: 'audio_end';
}

export type ClientMessage =
  | UserTextMessage
  | SayMessage
  | NoteMessage
  | InterruptMessage
  | SessionUpdateMessage
  | AudioMessage
  | AudioEndMessage
  | DtmfMessage
  | PingMessage
  | HistoryMessage
  | ToolConfirmMessage
  | ToolAnswerMessage
  | ClientToolResultMessage;

const TYPES = {
  user_text: UserTextMessage,
  say: SayMessage,
  note: NoteMessage,
  interrupt: InterruptMessage,
  'session.update': SessionUpdateMessage,
  audio: AudioMessage,
  audio_end: AudioEndMessage,
  dtmf: DtmfMessage,
  ping: PingMessage,
  history: HistoryMessage,
  tool_confirm: ToolConfirmMessage,
  tool_answer: ToolAnswerMessage,
  client_tool_result: ClientToolResultMessage,
} as const;

/** Every client → engine message type. */
export const CLIENT_MESSAGE_TYPES = Object.keys(TYPES);

/** class-validator's type checks, told before the other checks a value fails. */
const TYPE_CHECKS = ['isString', 'isBoolean', 'isArray', 'isIn'];

/**
 * The message's fields on an instance of its class, for class-validator. The classes are flat
 * (no nested classes to build), so a copy of the fields is all class-transformer's
 * `plainToInstance` would do, at a fraction of its cost on every frame. A `__proto__` key (an own
 * field once JSON-parsed) is no field of any message and is left out: assigned, it would swap the
 * instance's class and with it the rules it is checked against.
 */
function instanceOf(cls: new () => ClientMessage, data: object): ClientMessage {
  const instance = new cls() as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(data)) if (key !== '__proto__') instance[key] = value;
  return instance as unknown as ClientMessage;
}

/**
 * Frames longer than this are read for their depth before they are parsed. A shorter one cannot
 * nest deep enough to cost JSON.parse more than ~1 ms, and a JSON audio frame (8.5 KB for
 * 200 ms) is not read twice.
 */
const SCANNED_FROM = 16 * 1024;

/** Parses and validates one text frame; returns the message or a human error. */
export function parseClientMessage(raw: string): { message: ClientMessage } | { error: string } {
  if (raw.length > SCANNED_FROM && textNestedDeeper(raw, MAX_JSON_DEPTH))
    return {
      error: `the message nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`,
    };
  let data: unknown;
  try {
    // A byte order mark before the JSON (a client that writes its frames as files do) is ignored, as RFC 8259 allows.
    data = JSON.parse(raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw);
  } catch {
    return { error: 'malformed JSON: every message must be a JSON object with a "type"' };
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return { error: 'every message must be a JSON object with a "type"' };
  }
  const type = (data as { type?: unknown }).type;
  if (type === undefined)
    return {
      error: `the message has no "type": expected one of ${CLIENT_MESSAGE_TYPES.join(', ')}`,
    };
  if (typeof type !== 'string' || !Object.hasOwn(TYPES, type)) {
    return {
      error: `unknown message type ${JSON.stringify(type ?? null)}: expected one of ${CLIENT_MESSAGE_TYPES.join(', ')}`,
    };
  }
  if (type === 'session.update') {
    const unknown = Object.keys(data).find(
      (key) => key !== 'type' && !Object.hasOwn(SETTINGS, key),
    );
    if (unknown !== undefined)
      return {
        error: `unknown setting ${JSON.stringify(unknown)} in session.update: expected ${Object.keys(SETTINGS).join(', ')}; nothing was changed`,
      };
  }
  if (
    type === 'client_tool_result' &&
    Object.hasOwn(data, 'result') === Object.hasOwn(data, 'error')
  )
    return {
      error:
        'client_tool_result needs exactly one of "result" (what the tool gave, any JSON) and "error" (why it failed, a string)',
    };
  const instance = instanceOf(TYPES[type as keyof typeof TYPES], data);
  const errors = validateSync(instance, { forbidUnknownValues: false });
  if (errors.length > 0) {
    const first = errors[0]!;
    const failed = first.constraints ?? {};
    // A value of the wrong type fails its length check too: the type is what to tell.
    const key = TYPE_CHECKS.find((k) => k in failed) ?? Object.keys(failed)[0];
    return { error: (key && failed[key]) ?? `invalid field "${first.property}"` };
  }
  return { message: instance };
}
