import type { SpanRef } from '../common/trace-context.js';
import type { Tool, ToolSnapshot } from './tool-definition.js';
import type { AnswerValue, Wanted } from './user-question.js';
import type { Agent } from './handoff-tool.js';
import type { Catalogue } from './tool-index.js';

/** What a tool call gives back: always text for the model, never an exception (seed §6). */
export interface ToolOutcome {
  ok: boolean;
  text: string;
  /** Code tools: what the code printed. */
  logs?: string;
  /** HTTP tools with `cache_secs`: the result of an earlier identical request, not sent again. */
  cached?: boolean;
  /**
   * HTTP and MCP tools: the backend did nothing of the call — it was never sent (an open circuit,
   * a refused connection, a name that does not resolve, no turn within `max_concurrency` or
   * `rate_limit`, a request that could not be built) or an HTTP backend refused it (4xx). Not
   * counted in `max_calls_per_session`.
   */
  notActed?: boolean;
  /** The model got the call wrong and it was not run (`tool_result`'s `model_error`). */
  modelError?: ModelError;
  /** Not run: the session's `tool_mocks` gave the result (`tool_result`'s `mocked`). */
  mocked?: boolean;
}

/**
 * How the model got a call wrong: a tool it was not offered, arguments that are not a JSON object
 * or that the tool's parameters refuse, a call cut off at its token limit, a value the user had
 * to give that they did not (`user_given`).
 */
export type ModelError = 'unknown_tool' | 'invalid_arguments' | 'cut_off' | 'not_from_user';

/** The outcome of a call the model got wrong: `text` for the model, nothing sent. */
export const mistaken = (modelError: ModelError, text: string): ToolOutcome => ({
  ok: false,
  text,
  notActed: true,
  modelError,
});

/**
 * How far a call that takes a while has got, as its MCP server (progress notifications) or code
 * (`context.report_progress`) tells:
 * a count and, when known, what it counts to; a short message for people.
 */
export interface ToolProgress {
  progress?: number;
  total?: number;
  message?: string;
}

/**
 * The user's answer to a call's question (see ToolCallContext.ask): a yes or no, or the value a
 * question that wants one was given (`no`: the user would not say).
 */
export type UserAnswer = 'yes' | 'no' | 'unanswered' | 'unasked' | { value: AnswerValue };

/** The conversation a tool call happens in (what code tools see as `context` and `_session`). */
export interface ToolCallContext {
  sessionId: string;
  turnId: string;
  modality: 'voice' | 'text';
  channel: string;
  /** The session's language and time zone (`_session["language"]`, `_session["timezone"]`). */
  language?: string;
  timezone?: string;
  /** The session's state, replaced by what a code tool leaves in it (when it does not raise). */
  state: { value: Record<string, unknown> };
  /** The conversation so far, oldest first. */
  events: readonly { role: string; content: string | null }[];
  /** The session's own model (one of LLM_MODELS), when it chose one. */
  model?: string;
  /** The calls of each tool run in the session so far, by name (`max_calls_per_session`). */
  callsMade?: Map<string, number>;
  /** The session's variables (`session.update`'s `variables`): `${session.NAME}` in HTTP tools. */
  variables: Readonly<Record<string, string>>;
  /** Results the session's tools give without being run, by name (`tool_mocks`). */
  mocks?: Readonly<Record<string, string>>;
  /** The turn's trace id: HTTP tool requests carry a W3C `traceparent` (TRACE_CONTEXT). */
  traceId?: string;
  /** The exported span requests of the call belong to (OTEL_EXPORTER_OTLP_ENDPOINT). */
  span?: SpanRef;
  /** Ends the session once the turn is over (an `end_session` tool's call). */
  endSession?: () => void;
  /** Hands the call over to `to` once the turn is over (a `transfer_call` tool's call). */
  transferCall?: (to: string) => void;
  /** Hands the conversation to another assistant from now on (a `handoff` tool's call). */
  handOff?: (to: Agent) => void;
  /**
   * The `deferred` tools the session may use, found or not (its selection, its assistant's, its
   * modality): what a `tool_search` call searches.
   */
  findable?: Catalogue;
  /** The name of the assistant holding the session (a handoff's, a choice's; none: the engine's own). */
  readonly agent?: string;
  /** Call `callId` has got this far (sent to the client as `tool_progress`). */
  progress?: (callId: string, update: ToolProgress) => void;
  /**
   * Asks the user a question for call `callId` while it runs (an MCP server's elicitation, a code
   * tool's `context.confirm`): a yes or no, as approvals are asked, or the value `wanted` says;
   * `unanswered` when they do not answer (or the turn ends, or `signal` aborts: the question given
   * up, first), `unasked` for a call the client was not told of.
   */
  ask?: (
    callId: string,
    question: string,
    wanted?: Wanted,
    signal?: AbortSignal,
  ) => Promise<UserAnswer>;
  /**
   * A call of the session's own tool `name` (`client_tools`) made by a code tool, handed to the
   * client as `client_tool_call` `id`; undefined when the session has no such tool.
   */
  callClientTool?: (
    id: string,
    name: string,
    args: Record<string, unknown>,
  ) => Promise<ToolOutcome> | undefined;
}

export interface ToolInvocation {
  id: string;
  name: string;
  args: Record<string, unknown>;
  /** The arguments as the model wrote them, when they could not be parsed as a JSON object. */
  rawArguments?: string;
  snapshot: ToolSnapshot;
  signal: AbortSignal;
  context?: ToolCallContext;
}

/** Port: runs one tool call. Implementations never throw. */
export abstract class ToolExecutor {
  abstract execute(invocation: ToolInvocation): Promise<ToolOutcome>;

  /**
   * What a call of `tool` would be answered now without being sent (its service found down), for
   * a call that needs the user's approval: undefined when it would be sent.
   */
  unavailable?(tool: Tool): ToolOutcome | undefined;
}
