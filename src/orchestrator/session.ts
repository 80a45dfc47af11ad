import { randomBytes, randomUUID } from 'node:crypto';
import { Subject } from 'rxjs';
import type { ChatMessage } from '../llm/llm.types.js';
import { redactedHistory, type Redact } from '../common/redaction.js';
import type { SpanRef } from '../common/trace-context.js';
import type { TokenUsage } from '../llm/usage.js';
import type { ClientReply } from './client-tools.js';
import type { BackgroundCalls } from './background-calls.js';
import type { SessionSettings } from './protocol/server-events.js';
import type { WaitingQuestion } from './questions.js';
import type { WaitsTold } from './waits-told.js';
import type { Agent } from '../tools/handoff-tool.js';
import { ConversationMemory } from './history-summary.js';
import type { Deadline } from './time-limit.js';
import type { TurnLatency } from './turn-latency.js';
import type { EarlyCalls } from './start-calls.js';

/**
 * One WebSocket connection's conversation. Other modules extend it through `data`
 * (e.g. speech settings, code-tool state).
 */
export class Session {
  /** The conversation's id, kept when a client resumes it on a new connection. */
  id: string = randomUUID();
  /** When the conversation began (ms since the epoch; SESSION_MAX_SECS). Kept when resumed. */
  startedAt = Date.now();
  /**
   * When its time limit ends the conversation (ms since the epoch), and how long before it the
   * model is told (see TimeLimit); none without a limit.
   */
  deadline: Deadline | undefined;
  /** The connection holding the session now (a resumed session changes hands). */
  readonly owner = randomUUID();
  /** The secret a client presents to resume the session after a disconnect; never logged. */
  resumeToken = randomBytes(24).toString('base64url');
  history: ChatMessage[] = [];
  /** Tokens of all its turns, when the LLM server reports usage (kept when resumed). */
  usage: TokenUsage | undefined;
  /** This connection's answers timed, for `/api/sessions` and its end-of-session report. */
  latency: TurnLatency | undefined;
  settings: SessionSettings;
  readonly data = new Map<string, unknown>();
  /** Calls waiting for the user's approval, by call id: settles one with the client's answer. */
  readonly approvals = new Map<string, (approved: boolean) => void>();
  /**
   * Calls whose question (`tool_question`) waits for the user's answer, by call id: what it wants,
   * and what settles it with the client's value, the user's words or their refusal.
   */
  readonly questions = new Map<string, WaitingQuestion>();
  /**
   * The ids of the calls whose approval or question the user has just answered (by voice, text,
   * keys or the client's message): the turn's speech stops saying that question.
   */
  readonly answered = new Subject<string>();
  /** Calls of the client's own tools waiting for its `client_tool_result`, by call id. */
  readonly clientCalls = new Map<string, (reply: ClientReply) => void>();
  /**
   * The span of the client's side of the connection, from its upgrade request's `traceparent` (a
   * gateway's or service mesh's): each turn's span links to it.
   */
  connectedFrom: SpanRef | undefined;
  /**
   * The model called an `end_session` tool, or a `transfer_call` tool (`transferTo`): the session
   * ends once the turn has been given whole.
   */
  ending: { transferTo?: string } | undefined;
  /** How the turn in progress tells of its waiting calls held or asked again ("one moment"). */
  waits: WaitsTold | undefined;
  /** The exported span of the latest turn, if spans are exported: its speech's spans go under it. */
  turnSpan: SpanRef | undefined;
  /**
   * The latest turn's spoken answer while the client may still be playing it, its turn over (its
   * audio is sent up to SPEECH_AUDIO_LEAD_MS ahead): what a barge-in then cuts.
   */
  playback: Playback | undefined;
  /**
   * The answer the user's voice cut, as it was, while the utterance that cut it is heard: said on
   * from where it was cut if it holds no words after all (a cough, a door). See Conversation.
   */
  cut: CutAnswer | undefined;
  /**
   * A call the agent placed with answering-machine detection: the message left when a machine
   * takes it ('' for none: the call ends). Kept when resumed.
   */
  machine: { voicemail: string } | undefined;
  /**
   * Made by `POST /api/calls` for a call not yet answered: the call's stream opens it (resuming
   * what waits in the store), which counts as a session started, not resumed.
   */
  placed = false;
  /**
   * The assistant holding the conversation (its instructions, its tools): a `handoff` tool's, or
   * one chosen (`session.update`'s `agent`, a line's, an administrator's); none: the engine's own.
   * Kept when resumed.
   */
  agent: Agent | undefined;
  /** The calls of each tool run in the conversation, by name (`max_calls_per_session`). Kept when resumed. */
  readonly toolCalls = new Map<string, number>();
  /** Its `at_start` tools have been called (in its first turn that asked the model). Kept when resumed. */
  startCalled = false;
  /** Its `at_start` calls begun as the user began to speak, for its first turn to read. */
  earlyCalls: EarlyCalls | undefined;
  /** The user's turns the bounded history no longer holds (`turnsOf` counts them). Kept when resumed. */
  turnsDropped = 0;
  /** What the bounded history dropped, summarised (LLM_HISTORY_SUMMARY). Its summary is kept when resumed. */
  readonly memory = new ConversationMemory();
  /** The connection's calls of `"background": true` tools (set by its conversation). */
  background: BackgroundCalls | undefined;
  private current:
    { controller: AbortController; done: Promise<void>; interruptible: boolean } | undefined;

  constructor(
    language = 'en',
    vadSilenceMs = 0,
    idleSecs = 0,
    timeZone = 'UTC',
    unfinishedWaitMs = 0,
  ) {
    this.settings = {
      modality: 'text',
      tts: true,
      voice: '',
      language,
      timezone: timeZone,
      audio: 'json',
      vad_silence_ms: vadSilenceMs,
      vad_unfinished_wait_ms: unfinishedWaitMs,
      idle_secs: idleSecs,
      max_secs: null,
      channel: 'websocket',
      input_audio_format: 'pcm16',
      output_audio_format: 'pcm16',
      instructions: '',
      model: null,
      tools: null,
      client_tools: [],
      variables: {},
    };
  }

  get busy(): boolean {
    return this.current !== undefined;
  }

  /**
   * Starts a turn; `run` receives the turn's signal and settles when the turn is over.
   * `interruptible` false: the user cannot cut it (a `say` of a notice that must be heard).
   */
  begin(run: (signal: AbortSignal) => Promise<void>, interruptible = true): void {
    const controller = new AbortController();
    const done = run(controller.signal).finally(() => {
      if (this.current?.controller === controller) this.current = undefined;
    });
    this.current = { controller, done, interruptible };
  }

  /**
   * The agent says what the user may not cut (see `begin`), its turn in progress or its speech
   * still playing: their voice and keys do not stop it, and what they say waits for its end.
   */
  get firm(): boolean {
    if (this.firmTurn) return true;
    const playback = this.playback;
    return playback?.firm === true && playback.spoken.some((s) => s.playedBy > performance.now());
  }

  /** The turn in progress is one the user may not cut. */
  get firmTurn(): boolean {
    return this.current?.interruptible === false;
  }

  /** Settles once no turn is in progress (at once when idle). */
  async idle(): Promise<void> {
    while (this.current) await this.current.done;
  }

  /**
   * Cancels the turn in progress, if any, and waits until it has ended; `reason` is its signal's
   * (a SpeechCut: the user's voice cut it).
   */
  async cancel(reason?: SpeechCut): Promise<void> {
    const current = this.current;
    if (!current) return;
    current.controller.abort(reason);
    await current.done;
  }
}

/**
 * Why a turn was cut short: the user's voice (not a key, nor a message) over the agent. An
 * AbortError, as an abort's default reason is.
 */
export class SpeechCut extends DOMException {
  constructor() {
    super('the user spoke over the agent', 'AbortError');
  }
}

/** A spoken answer's sentences, each with when the client will have played it. */
export interface Playback {
  spoken: { sentence: string; playedBy: number }[];
  /** The history's last message as the turn ended: a changed history is not cut. */
  last: ChatMessage | undefined;
  /** Said by a turn the user may not cut (see `Session.firm`). */
  firm?: true;
}

/** An answer cut by the user's voice: the history as it was, and what was not heard of it. */
export interface CutAnswer {
  history: ChatMessage[];
  rest: string;
  /** The history as the cut left it: a history changed since is not restored. */
  trimmed: ChatMessage[];
  at: number;
}

/**
 * A session's conversation as operators read it (a report, `/api/sessions`): its history and the
 * summary of what the bounded history dropped, both redacted as the engine is told.
 */
export function publicConversation(
  session: Session,
  redact: Redact | undefined,
): { history: ChatMessage[]; summary?: string } {
  const said = session.memory.summary;
  return {
    history: redactedHistory(session.history, redact),
    ...(said && { summary: redact ? redact(said) : said }),
  };
}

/** A session's settings as operators see them: of its variables and client tools only the names. */
export function publicSettings(settings: SessionSettings): Record<string, unknown> {
  const { variables, client_tools: clientTools, tool_mocks: mocks, ...rest } = settings;
  return {
    ...rest,
    variables: Object.keys(variables),
    client_tools: clientTools.map((t) => t.name),
    ...(mocks && { tool_mocks: Object.keys(mocks) }),
  };
}

/** The user's messages so far, those the bounded history dropped too: the session's turns. */
export function turnsOf(session: Session): number {
  return session.history.filter((m) => m.role === 'user').length + session.turnsDropped;
}

/** Keeps `kept`, the end of the session's history: the user's turns before it are counted. */
export function keepEnd(session: Session, kept: ChatMessage[]): void {
  const gone = session.history.length - kept.length;
  for (let i = 0; i < gone; i++) if (session.history[i]!.role === 'user') session.turnsDropped++;
  session.history = kept;
}
