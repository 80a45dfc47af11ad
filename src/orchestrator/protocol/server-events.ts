import type { AudioFormat, AudioFormatName } from '../../speech/audio-formats.js';
import type { TokenUsage } from '../../llm/usage.js';
import type { ClientTool } from '../client-tools.js';
import type { ErrorCode } from './error-codes.js';
import type { ToolProgressEvent } from '../progress-relay.js';
import type { AnswerValue, WantedAnswer } from '../../tools/user-question.js';
import type { SeenMessage } from '../seen-history.js';
import type { NamedPhrases } from '../../common/named-phrases.js';
import type { AudioTimings, TextTimings } from '../turn-timings.js';
import type { ModelError } from '../../tools/tool-executor.js';

/** Engine → client messages on `/ws` (README, "WebSocket protocol"). */
export type TurnEvent =
  | { type: 'assistant_delta'; text: string }
  | { type: 'tool_call'; id: string; name: string; arguments: Record<string, unknown> }
  | {
      type: 'tool_result';
      id: string;
      name: string;
      ok: boolean;
      ms: number;
      logs?: string;
      cached?: boolean;
      /** Not run: the same call succeeded earlier in the turn (LLM_TOOL_REPEAT_CALLS). */
      repeated?: boolean;
      /** A `"background": true` tool's call: `started` in its turn, `done` when its result came. */
      background?: 'started' | 'done';
      /** Not run: the model got the call wrong (a tool it was not offered, bad arguments, cut off). */
      model_error?: ModelError;
      /** Not run: the session's `tool_mocks` gave its result (an engine under test). */
      mocked?: true;
    }
  /** How far a call that takes a while has got, as its MCP server or code tells. */
  | ToolProgressEvent
  /** A call of one of the client's own tools (`client_tools`): the client runs it and answers. */
  | { type: 'client_tool_call'; id: string; name: string; arguments: Record<string, unknown> }
  /** A call of a `"confirm": true` tool waits for the client's `tool_confirm` answer. */
  | {
      type: 'tool_confirm';
      id: string;
      name: string;
      arguments: Record<string, unknown>;
      /** The tool's `confirm_prompt` for this call; spoken in voice sessions. */
      prompt?: string;
      /**
       * `untrusted`: asked only because the model has read what anyone may have written (a tool's
       * `untrusted` results), for a client to say so.
       */
      reason?: 'untrusted';
    }
  /**
   * A running call asks its user for a value (an MCP server's form of one text, number or choice
   * field): answered by the client's `tool_answer`, or by what the user says, types or keys next.
   */
  | {
      type: 'tool_question';
      id: string;
      name: string;
      arguments: Record<string, unknown>;
      prompt: string;
      answer: WantedAnswer;
      /** Asked again: why the last answer was not taken. */
      unclear?: string;
    }
  /** The user's spoken, typed or keyed answer to a `tool_question` (`null`: a no). */
  | { type: 'tool_answered'; id: string; value: AnswerValue | null }
  /**
   * The user asked the calls waiting for their answer or approval (`ids`) to wait ("one moment"):
   * each waits its whole time again.
   */
  | { type: 'tool_held'; ids: string[] }
  /** The user asked whether the agent is there ("hello?") while the calls `ids` run: they go on. */
  | { type: 'tool_still_running'; ids: string[] }
  /** The model handed the conversation to another assistant (a `handoff` tool's call). */
  | { type: 'handoff'; agent: string; language?: string }
  | {
      type: 'assistant_end';
      text: string;
      interrupted?: true;
      /** A second end for a turn whose text had ended: the text that was heard before a barge-in. */
      heard?: true;
      /** The rest of an answer cut by a sound that held no words, said on. */
      resumed?: true;
      usage?: TokenUsage;
      /** Where the turn's time went, for a session that asked (`timings`). */
      timings?: TextTimings;
    }
  | { type: 'error'; code: ErrorCode; message: string };

export interface SessionSettings {
  modality: 'voice' | 'text';
  tts: boolean;
  voice: string;
  language: string;
  /** The user's time zone (an IANA name): the model's clock, dates said aloud, code tools. */
  timezone: string;
  audio: 'json' | 'binary';
  /** Silence after speech that ends an utterance; 0: the client ends each with `audio_end`. */
  vad_silence_ms: number;
  /** How long words that sound unfinished wait for the user to go on (VAD); 0: never held. */
  vad_unfinished_wait_ms: number;
  /** A voice session's user silent this long after the agent's turn is asked, then let go; 0: never. */
  idle_secs: number;
  /** How long the conversation may last (seconds from its start); null: SESSION_MAX_SECS. */
  max_secs: number | null;
  /** Where the conversation happens, as the client says (`twilio`: `/twilio`'s calls); for code tools. */
  channel: string;
  /** The format of the user's audio: 16 kHz PCM, or G.711 at 8 kHz (a telephone line's). */
  input_audio_format: AudioFormatName;
  /** The format of the answer's speech: the engine's PCM, or G.711 at 8 kHz. */
  output_audio_format: AudioFormatName;
  /** Added to the system prompt of this session's requests (`session.update`). */
  instructions: string;
  /** The model this session's turns ask for (one of LLM_MODELS); null for the engine's. */
  model: string | null;
  /** The only tools this session's model is offered (by name); null for all the active tools. */
  tools: string[] | null;
  /** Tools the client runs itself, offered to the model with the engine's (`session.update`). */
  client_tools: ClientTool[];
  /** What the engine says itself in this session instead of its settings; absent: none. */
  phrases?: NamedPhrases;
  /** `assistant_end` and `audio_end` say where the turn's time went; absent: they do not. */
  timings?: true;
  /** Results the session's tools give without being run, by tool name (SESSION_TOOL_MOCKS). */
  tool_mocks?: Record<string, string>;
  /** Values the client gives the session's tools (`${session.NAME}`); the model never sees them. */
  variables: Record<string, string>;
}

export type ServerEvent =
  | TurnEvent
  | {
      type: 'session';
      session_id: string;
      settings: SessionSettings;
      /** True when the connection resumed an earlier session (history, settings, state). */
      resumed: boolean;
      /** Present when sessions can be resumed (SESSION_RESUME_SECS > 0). */
      resume_token?: string;
      /** The assistant holding the session (a resumed one's, a placed call's); null: the engine's own. */
      agent: string | null;
    }
  | {
      type: 'session.updated';
      settings: SessionSettings;
      audio_format: AudioFormat | null;
      /** The assistant holding the session (a handoff's, or `session.update`'s `agent`). */
      agent: string | null;
    }
  | { type: 'transcript'; text: string; heard_out?: true; unfinished?: true; language?: string }
  /** The engine hears the user begin to speak (voice activity detection): a barge-in. */
  /**
   * `heard_out`: no barge-in, the turn's calls running: the agent goes on (a client keeps playing
   * its speech) until the utterance, heard out, says more than "okay".
   */
  | { type: 'speech_started'; heard_out?: true }
  /** The user stopped speaking; `cut`: the utterance reached STT_MAX_SECONDS instead. */
  | { type: 'speech_stopped'; cut?: true }
  /** The user answered a call awaiting approval by saying (or typing) yes or no (not a turn's event). */
  | { type: 'tool_confirmed'; id: string; approved: boolean }
  | ({ type: 'audio'; seq: number; data: string } & AudioFormat)
  /** `timings`: where the speech's time went, for a session that asked. */
  | { type: 'audio_end'; timings?: AudioTimings }
  /**
   * The client drops the agent's audio it has not played yet: the question being said was
   * answered (a key pressed at "Press 1 to confirm"), or is asked again from its start.
   */
  | { type: 'audio_clear' }
  | { type: 'pong'; id?: string }
  /**
   * The conversation as the user saw it, asked by `history`; `earlier`: how many of its turns the
   * bounded history (LLM_MAX_HISTORY_MESSAGES) no longer holds.
   */
  | { type: 'history'; messages: SeenMessage[]; earlier: number }
  /** The model handed the call over to a person (`transfer_call`): the client dials `to`. */
  | { type: 'transfer'; to: string };

export type { AudioFormat };

/** Every engine → client message type (the compiler keeps the list whole), for the protocol doc. */
export const SERVER_EVENT_TYPES = Object.keys({
  assistant_delta: true,
  tool_call: true,
  tool_result: true,
  tool_progress: true,
  tool_confirm: true,
  tool_confirmed: true,
  tool_question: true,
  tool_answered: true,
  tool_held: true,
  tool_still_running: true,
  handoff: true,
  client_tool_call: true,
  assistant_end: true,
  error: true,
  session: true,
  'session.updated': true,
  transcript: true,
  speech_started: true,
  speech_stopped: true,
  audio: true,
  audio_end: true,
  audio_clear: true,
  pong: true,
  history: true,
  transfer: true,
} satisfies Record<ServerEvent['type'], true>);
