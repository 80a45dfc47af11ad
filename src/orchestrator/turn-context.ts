import type { ClockMode } from '../common/clock.js';
import type { ChatMessage, LlmEvent, LlmRequest, LlmTool } from '../llm/llm.types.js';
import type { Spans } from '../tracing/spans.js';
import type { StreamedText } from '../llm/streamed-text.js';
import { alternating, shedOlderTurns, systemMessageOf, trimHistory } from './history.js';
import type { ConversationMemory } from './history-summary.js';
import { addUsage, type TokenUsage } from '../llm/usage.js';
import type { ToolSnapshot } from '../tools/tool-definition.js';
import type { ToolCallContext } from '../tools/tool-executor.js';
import { unfound } from '../tools/tool-search.js';
import { announceCall, type CallStarter, type StartedCall } from './call-start.js';
import type { ClientTool } from './client-tools.js';
import type { TurnEvent } from './protocol/server-events.js';
import { RoundFailed } from './round.js';
import { keepEnd, type Session } from './session.js';
import type { TurnResults } from './repeated-calls.js';
import { nudgeNote, type Nudge } from './unkept-promise.js';
import type { Approval } from './approvals.js';
import type { Waited } from './awaiting.js';
import type { QuestionOutcome, QuestionReply } from './questions.js';
import type { Wanted } from '../tools/user-question.js';
import type { TurnTimings } from './turn-timings.js';

/** One turn in progress, as the turn loop and its calls see it. */
export interface TurnContext {
  session: Session;
  turnId: string;
  /** The tools active at the turn's start. */
  base: ToolSnapshot;
  /** What the current request may use (modalities and callbacks applied). */
  snapshot: ToolSnapshot;
  toolContext: ToolCallContext;
  signal: AbortSignal;
  emit: (event: TurnEvent) => void;
  /** Counts and logs a call's result without sending it (a background call's, after the turn). */
  tally: (event: Extract<TurnEvent, { type: 'tool_result' }>) => void;
  /** The answer's text sent so far, over all rounds. */
  visible: StreamedText;
  /** Whitespace held back until visible text follows (layout around calls is not spoken). */
  pendingWs: string;
  /**
   * Where whitespace that arrives now goes: `held` after visible text (`pendingWs`); `afterCall`
   * after a call (`afterCallWs`, kept only if visible text follows in the same round: layout
   * between calls is not); `roundStart` at the start of a round after a tool round (dropped: the
   * rounds are joined by the whitespace held before the calls).
   */
  wsMode: 'held' | 'afterCall' | 'roundStart';
  afterCallWs: string;
  /** Tokens of the turn's requests, summed, when the server reports them. */
  usage?: TokenUsage;
  /** Where the turn's time goes, when its session asked (`timings`). */
  timings?: TurnTimings;
  /** The client's own tools offered in this turn (`client_tools` at its start), by name. */
  clientTools: ReadonlyMap<string, ClientTool>;
  /**
   * Calls under way before their round ended, by call id: handed to the client (`askClient`), or
   * run at once because running them early changes nothing (`startsEarly`).
   */
  started: Map<string, StartedCall>;
  /** Aborted when the turn is cancelled or over: a call still running or waiting then gets no result. */
  readonly callSignal: AbortSignal;
  /** Calls the model has made in the current completion request (see LLM_TOOL_MAX_CALLS_PER_ROUND). */
  roundCalls: number;
  /** The results of the turn's calls that acted, for the same calls made again (LLM_TOOL_REPEAT_CALLS). */
  results: TurnResults;
  /** Calls that act, running when the turn is cut, finish (LLM_TOOL_INTERRUPTED_CALLS=finish). */
  finishCutCalls: boolean;
  /** A round's reasoning goes with its calls into the history until the turn ends (LLM_KEEP_REASONING). */
  keepReasoning: boolean;
  /**
   * The round's request held a result of an `untrusted` tool: its calls of tools that act wait
   * for the user's approval (untrusted-reads.ts).
   */
  readUntrusted: boolean;
  /**
   * An answer that ended promising to act with no call (LLM_TOOL_NUDGE): its text, its last
   * sentence, and `open` while the next request is to tell the model that nothing ran.
   */
  nudge?: Nudge;
  /**
   * Asks the client to approve call `id` (of a `"confirm": true` tool) and waits for its answer,
   * until the turn is cancelled (or `until` aborts).
   */
  approve: (id: string, until?: AbortSignal) => Promise<{ approval: Approval; refusal?: string }>;
  /** Waits for the answer to call `id`'s question (`tool_question`, just sent), as `approve`. */
  hear: (id: string, wanted: Wanted, until?: AbortSignal) => Promise<Waited<QuestionReply>>;
  /** A question's outcome, counted. */
  questioned: (outcome: QuestionOutcome) => void;
  /** The engine's spans, when exported: calls the client runs get theirs here. */
  spans?: Spans;
}

/**
 * What the turn does with an event of the model's stream: visible text is shown, a call announced
 * and maybe started (when `starter` is given: calls are taken in this request), usage summed.
 */
export function forwardEvent(
  ctx: TurnContext,
  event: LlmEvent,
  starter: CallStarter | undefined,
  debug: (line: string) => void,
): void {
  if (event.type === 'text') {
    showText(ctx, event.text);
  } else if (event.type === 'tool_call' && starter) {
    debug(
      `tool call ${event.name} ${event.rawArguments} (session_id=${ctx.session.id} turn_id=${ctx.turnId})`,
    );
    ctx.wsMode = 'afterCall';
    announceCall(ctx, event, starter);
  } else if (event.type === 'done' && event.usage) {
    ctx.usage = addUsage(ctx.usage, event.usage);
  }
}

/** A call's outcome, for the operator: which tools a turn ran (never their arguments). */
export function callOutcomeLine(event: Extract<TurnEvent, { type: 'tool_result' }>): string {
  const what =
    event.background === 'started'
      ? 'started in the background'
      : event.repeated
        ? 'not run again: the same call succeeded earlier in the turn'
        : `${event.ok ? 'ok' : 'failed'} in ${event.ms} ms${event.cached ? ' (cached)' : ''}${event.background ? ' (in the background)' : ''}`;
  return `tool ${event.name} ${what}`;
}

const NOT_SPACE = /\S/;

/**
 * Visible text of the model, sent as `assistant_delta`: whitespace alone is held until visible
 * text follows, and kept or dropped as `wsMode` says; the answer never begins with whitespace.
 */
export function showText(ctx: TurnContext, delta: string): void {
  // Whitespace only (as `trim` sees it), told without a trimmed copy of every delta.
  if (!NOT_SPACE.test(delta)) {
    if (ctx.wsMode === 'held') ctx.pendingWs += delta;
    else if (ctx.wsMode === 'afterCall') ctx.afterCallWs += delta;
    return;
  }
  const start = ctx.visible.length === 0;
  const body = start || ctx.wsMode === 'roundStart' ? delta.trimStart() : delta;
  const text = start ? body : ctx.pendingWs + ctx.afterCallWs + body;
  ctx.pendingWs = ctx.afterCallWs = '';
  ctx.wsMode = 'held';
  ctx.visible.append(text);
  ctx.emit({ type: 'assistant_delta', text });
}

/** After these, the next round's text follows without a space: whitespace, and CJK text. */
export const NO_SPACE_AFTER =
  /[\s\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3000-\u303f\uff00-\uffef]/u;

/**
 * A round's text has ended. Between it and the next round's: the whitespace held at its end, or
 * a space, whatever the deltas were (sent only if visible text follows).
 */
export function roundTextEnded(ctx: TurnContext): void {
  const joined = ctx.visible.length === 0 || NO_SPACE_AFTER.test(ctx.visible.lastChar);
  ctx.pendingWs = joined ? ctx.pendingWs : ctx.pendingWs || ' ';
  ctx.afterCallWs = '';
  ctx.wsMode = 'roundStart';
}

/**
 * After the server refused a conversation longer than the model's context: the session drops
 * its older turns (half of them each time) so that this turn, and the next ones, can be
 * answered. False when the error is another one, or no older turn is left to drop.
 */
export function shedForContext(
  ctx: TurnContext,
  error: unknown,
  logger: { warn: (line: string) => void },
  metrics: { historyShortened: () => void },
  memory?: ConversationMemory,
): boolean {
  if (!(error instanceof RoundFailed && error.contextOverflow)) return false;
  const kept = shedOlderTurns(ctx.session.history);
  if (!kept) return false;
  memory?.dropped(ctx.session.history.slice(0, ctx.session.history.length - kept.length));
  logger.warn(
    `the conversation does not fit the model's context: dropped its ${ctx.session.history.length - kept.length} oldest messages and asked again (session_id=${ctx.session.id} turn_id=${ctx.turnId})`,
  );
  keepEnd(ctx.session, kept);
  metrics.historyShortened();
  return true;
}

/**
 * A round's request: the system message, the history (trimmed, user messages in a row joined),
 * the tools the round offers (the engine's and the client's), the turn's trace id and the
 * session's model.
 */
export function requestOf(
  ctx: TurnContext,
  toolChoice: 'auto' | 'none',
  settings: {
    systemPrompt: string;
    maxHistoryMessages: number;
    clock: ClockMode;
    defuseSpecialTokens: boolean;
  },
): LlmRequest {
  const tools: LlmTool[] = [...ctx.snapshot.tools, ...ctx.clientTools.values()].map((t) => ({
    name: t.name,
    description: t.description,
    parameters: t.parameters,
  }));
  const messages: ChatMessage[] = [
    systemMessageOf(
      ctx.session,
      settings.systemPrompt,
      settings.clock,
      new Date(),
      settings.defuseSpecialTokens,
    ),
    ...alternating(trimHistory(ctx.session.history, settings.maxHistoryMessages)),
    ...(ctx.nudge?.open ? [nudgeNote(ctx.nudge)] : []),
  ];
  const { traceId, span, findable } = ctx.toolContext;
  const { model } = ctx.session.settings;
  const unoffered = unfound(findable, ctx.snapshot).map(({ name, parameters }) => ({
    name,
    parameters,
  }));
  return {
    messages,
    tools,
    ...(unoffered.length > 0 && { unoffered }),
    toolChoice,
    ...(traceId && { traceId }),
    ...(span && { span }),
    ...(model && { model }),
  };
}
