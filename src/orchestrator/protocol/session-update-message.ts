/** `session.update`: the settings a client may change, each checked. */
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';
import { Optional } from '../../common/optional-field.js';
import { LANGUAGE_CODE } from '../../common/language-code.js';
import { AUDIO_FORMATS, type AudioFormatName } from '../../speech/audio-formats.js';
import { MAX_CLIENT_TOOLS } from '../client-tools.js';
import type { SessionSettings } from './server-events.js';

/** `{"type":"session.update",…}`: changes this session's settings; every field is optional. */
const formatMessage = (field: string) =>
  `"${field}" must be ${AUDIO_FORMATS.map((f) => `"${f}"`).join(', ')}`;

const VAD_SILENCE_MESSAGE =
  '"vad_silence_ms" must be a whole number of milliseconds from 0 (the client ends each utterance with audio_end) to 10000';

const UNFINISHED_MESSAGE =
  '"vad_unfinished_wait_ms" must be a whole number of milliseconds from 0 (every utterance answered at once) to 10000';

export const TIMEZONE_MESSAGE =
  '"timezone" must be an IANA time zone such as Europe/Rome, America/New_York or UTC';

const IDLE_MESSAGE =
  '"idle_secs" must be a number of seconds from 0 (never asked whether the user is there) to 3600';

const MAX_SECS_MESSAGE =
  '"max_secs" must be a whole number of seconds from 1 to 604800, or null for SESSION_MAX_SECS';

const AGENT_MESSAGE =
  '"agent" must be the name of an assistant (a handoff tool\'s), or null for the engine\'s own';

export class SessionUpdateMessage {
  @IsIn(['session.update'])
  type!: 'session.update';

  @Optional()
  @IsIn(['voice', 'text'], { message: '"modality" must be "voice" or "text"' })
  modality?: 'voice' | 'text';

  @Optional()
  @IsBoolean({ message: '"tts" must be true or false' })
  tts?: boolean;

  @Optional()
  @IsString({ message: '"voice" must be a string' })
  @MaxLength(100, { message: '"voice" is longer than 100 characters' })
  voice?: string;

  @Optional()
  @Matches(LANGUAGE_CODE, {
    message: '"language" must be a language code such as en, it, es',
  })
  language?: string;

  /** The user's time zone, an IANA name (checked by `settingsChanges`): `Europe/Rome`. */
  @Optional()
  @IsString({ message: TIMEZONE_MESSAGE })
  @MaxLength(64, { message: TIMEZONE_MESSAGE })
  timezone?: string;

  @Optional()
  @IsIn(['json', 'binary'], { message: '"audio" must be "json" or "binary"' })
  audio?: 'json' | 'binary';

  /** The user's audio: 16 kHz PCM (`pcm16`), or G.711 μ-law or A-law at 8 kHz. */
  @Optional()
  @IsIn(AUDIO_FORMATS, { message: formatMessage('input_audio_format') })
  input_audio_format?: AudioFormatName;

  /** The answer's speech: the engine's PCM (`pcm16`), or G.711 μ-law or A-law at 8 kHz. */
  @Optional()
  @IsIn(AUDIO_FORMATS, { message: formatMessage('output_audio_format') })
  output_audio_format?: AudioFormatName;

  /** Silence after speech that ends an utterance (voice activity detection); 0: `audio_end` does. */
  @Optional()
  @IsInt({ message: VAD_SILENCE_MESSAGE })
  @Min(0, { message: VAD_SILENCE_MESSAGE })
  @Max(10_000, { message: VAD_SILENCE_MESSAGE })
  vad_silence_ms?: number;

  /** How long an utterance whose words sound unfinished waits for the user to go on; 0: never. */
  @Optional()
  @IsInt({ message: UNFINISHED_MESSAGE })
  @Min(0, { message: UNFINISHED_MESSAGE })
  @Max(10_000, { message: UNFINISHED_MESSAGE })
  vad_unfinished_wait_ms?: number;

  /** A voice session's user silent this long after a turn is asked whether they are there; 0: never. */
  @Optional()
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: IDLE_MESSAGE })
  @Min(0, { message: IDLE_MESSAGE })
  @Max(3600, { message: IDLE_MESSAGE })
  idle_secs?: number;

  /** How long the conversation may last, from its start (at most SESSION_MAX_SECS); null: that. */
  @ValidateIf((_, value) => value !== null && value !== undefined)
  @IsInt({ message: MAX_SECS_MESSAGE })
  @Min(1, { message: MAX_SECS_MESSAGE })
  @Max(7 * 24 * 3600, { message: MAX_SECS_MESSAGE })
  max_secs?: number | null;

  /** Where the conversation happens (`_session["channel"]` in code tools): `web`, `phone`, … */
  @Optional()
  @Matches(/^[a-z][a-z0-9_.-]{0,39}$/, {
    message:
      '"channel" must be a name of 1 to 40 lower-case letters, digits, "_", "." or "-", starting with a letter',
  })
  channel?: string;

  /** Context for this session's model (the caller, the task), after the engine's system prompt. */
  @Optional()
  @IsString({ message: '"instructions" must be a string' })
  instructions?: string;

  /** The model this session's turns ask for, one of LLM_MODELS; null for the engine's again. */
  @ValidateIf((_, value) => value !== null && value !== undefined)
  @IsString({ message: '"model" must be a model name, or null for the engine\'s' })
  @MaxLength(200, { message: '"model" is longer than 200 characters' })
  model?: string | null;

  /** The only tools this session's model is offered, by name; null offers all of them again. */
  @ValidateIf((_, value) => value !== null && value !== undefined)
  @IsArray({ message: '"tools" must be an array of tool names, or null for all tools' })
  @ArrayMaxSize(256, { message: '"tools" names more than 256 tools' })
  @IsString({
    each: true,
    message: '"tools" must be an array of tool names, or null for all tools',
  })
  tools?: string[] | null;

  /** Tools the client runs itself (checked by `readClientTools`); null or [] for none. */
  @ValidateIf((_, value) => value !== null && value !== undefined)
  @IsArray({ message: '"client_tools" must be an array of tool definitions, or null for none' })
  @ArrayMaxSize(MAX_CLIENT_TOOLS, {
    message: `"client_tools" holds more than ${MAX_CLIENT_TOOLS} tools`,
  })
  client_tools?: unknown[] | null;

  /** Values for the session's tools (`${session.NAME}`), checked by `settingsChanges`; null for none. */
  @ValidateIf((_, value) => value !== null && value !== undefined)
  @IsObject({
    message: '"variables" must be an object of names and string values, or null for none',
  })
  variables?: Record<string, unknown> | null;

  /**
   * The assistant the session goes on as (a `handoff` tool's, by its `agent` name or the tool's
   * name), checked by `settingsChanges`; null for the engine's own.
   */
  @ValidateIf((_, value) => value !== null && value !== undefined)
  @IsString({ message: AGENT_MESSAGE })
  @MaxLength(64, { message: AGENT_MESSAGE })
  agent?: string | null;

  /**
   * What the engine says itself in this session (its wait phrase, its idle prompt…), by name,
   * instead of its settings (checked by `settingsChanges`); null for the engine's own again.
   */
  @ValidateIf((_, value) => value !== null && value !== undefined)
  @IsObject({ message: '"phrases" must be an object of phrase names and phrases, or null' })
  phrases?: Record<string, unknown> | null;

  /**
   * Results the session's tools give without being run, by tool name (an engine under test,
   * SESSION_TOOL_MOCKS); checked by `settingsChanges`; null for none.
   */
  @ValidateIf((_, value) => value !== null && value !== undefined)
  @IsObject({
    message: '"tool_mocks" must be an object of tool names and results, or null for none',
  })
  tool_mocks?: Record<string, unknown> | null;

  /** Whether `assistant_end` and `audio_end` say where the turn's time went (`timings`). */
  @Optional()
  @IsBoolean({ message: '"timings" must be true or false' })
  timings?: boolean;
}

/** The settings `session.update` may change: another field is refused (a typo would be lost). */
export const SETTINGS: Record<keyof SessionSettings | 'agent', true> = {
  modality: true,
  tts: true,
  voice: true,
  language: true,
  timezone: true,
  audio: true,
  vad_silence_ms: true,
  vad_unfinished_wait_ms: true,
  idle_secs: true,
  max_secs: true,
  channel: true,
  input_audio_format: true,
  output_audio_format: true,
  instructions: true,
  model: true,
  tools: true,
  client_tools: true,
  variables: true,
  agent: true,
  phrases: true,
  timings: true,
  tool_mocks: true,
};
