import type { ToolCallEvent } from '../llm/llm.types.js';
import { isSafe, type Tool } from '../tools/tool-definition.js';
import { toolErrors } from '../tools/tool-errors.js';
import { argumentProblem } from '../tools/argument-check.js';
import { sessionCapRefusal } from '../tools/session-cap.js';
import {
  mistaken,
  type ToolCallContext,
  type ToolExecutor,
  type ToolOutcome,
} from '../tools/tool-executor.js';
import { askClient } from './client-tools.js';
import { repeatedText } from './repeated-calls.js';
import type { TurnContext } from './turn-context.js';
import { needsApproval } from './untrusted-reads.js';
import { endToolSpan, toolSpan } from '../tracing/tool-spans.js';
import { notGiven, userWords, type UserWords } from '../tools/user-given.js';
import { saidByUser } from './notes.js';

/** What getting a call going needs from the turn loop. */
export interface CallStarter {
  executor: ToolExecutor;
  limits: {
    timeoutSecs: number;
    resultMaxChars: number;
    maxCallsPerRound: number;
    earlyStart: boolean;
  };
}

/**
 * Announces a call the model has just made (`tool_call`) and gets it going before its round ends
 * where that is safe: a call of the client's own tools goes to the client, a call that changes
 * nothing runs (`startsEarly`); the rest wait for `runCalls`. A call beyond the round's limit of
 * calls is never run: the model reads why (a model caught in a loop must not flood a backend).
 */
export function announceCall(ctx: TurnContext, call: ToolCallEvent, starter: CallStarter): void {
  ctx.emit({ type: 'tool_call', id: call.id, name: call.name, arguments: call.arguments });
  const { limits } = starter;
  const tool = ctx.snapshot.byName.get(call.name);
  const answer = notRun(ctx, call, tool, starter);
  if (answer) {
    ctx.started.set(call.id, { outcome: Promise.resolve({ ...answer, ms: 0 }) });
    return;
  }
  const client = ctx.clientTools.get(call.name);
  if (client) {
    // The client runs it: its span lasts until the client answers (or the turn ends first).
    const span = toolSpan(ctx.spans, ctx.toolContext.span, call, 'client');
    const asked = askClient(ctx, call, client, limits);
    const outcome = span ? asked.then((result) => (endToolSpan(span, result), result)) : asked;
    ctx.started.set(call.id, { outcome: timed(outcome, ctx.callSignal) });
  } else if (limits.earlyStart && startsEarly(tool))
    ctx.started.set(call.id, startCall(starter.executor, ctx, call));
}

/**
 * What the model reads of a call that is not run: one beyond the round's limit of calls, one cut
 * off at the model's token limit, one that needs the user's approval and would be refused
 * whatever the answer (see refusedAnyway), or one that repeats a call that acted earlier in the
 * turn (`repeated`); undefined for a call to run. Counts the call in the round.
 */
function notRun(
  ctx: TurnContext,
  call: ToolCallEvent,
  tool: Tool | undefined,
  { executor, limits: { maxCallsPerRound } }: CallStarter,
): (ToolOutcome & { repeated?: boolean }) | undefined {
  if (++ctx.roundCalls > maxCallsPerRound) {
    const why = `not run: at most ${maxCallsPerRound} calls are run per message; make the others after these results`;
    return { ok: false, text: toolErrors.requestFailed(why) };
  }
  if (call.cutOff) return mistaken('cut_off', toolErrors.cutOff());
  const unsaid = tool?.userGiven && notGiven(tool.userGiven, call.arguments, () => heard(ctx));
  if (unsaid) return mistaken('not_from_user', toolErrors.notFromUser(unsaid.name, unsaid.value));
  const refused =
    tool && needsApproval(tool, ctx.readUntrusted)
      ? refusedAnyway(ctx, call, tool, executor)
      : undefined;
  if (refused) return refused;
  const earlier = ctx.results.earlier(call, tool);
  return earlier === undefined
    ? undefined
    : { ok: true, text: repeatedText(earlier), repeated: true };
}

/** What the user said, typed or keyed in the conversation, as `user_given` arguments are read in. */
function heard(ctx: TurnContext): UserWords {
  const { history, settings } = ctx.session;
  return userWords(
    history.filter(saidByUser).map((m) => m.content as string),
    settings.language,
  );
}

/**
 * Why a call of `tool`, which needs the user's approval, would be refused whatever the answer:
 * arguments that are not a JSON object (said as the tool's kind says it), that its
 * parameters refuse (they are made what will be sent meanwhile: the user is not shown
 * `"<name>"`), its `max_calls_per_session` reached, or its service found down (its circuit open
 * for a while yet: the caller would approve a call that is then not sent). Undefined for a call
 * to put to the user.
 */
function refusedAnyway(
  ctx: TurnContext,
  call: ToolCallEvent,
  tool: Tool,
  executor: ToolExecutor,
): ToolOutcome | undefined {
  if (!call.argumentsValid) {
    const notAnObject =
      tool.kind === 'python' ? toolErrors.codeNotAnObject : toolErrors.notAnObject;
    return mistaken('invalid_arguments', notAnObject(call.rawArguments));
  }
  const problem = argumentProblem(tool.parameters, call.arguments);
  if (problem) return mistaken('invalid_arguments', toolErrors.requestFailed(problem));
  return sessionCapRefusal(tool, ctx.toolContext.callsMade) ?? executor.unavailable?.(tool);
}

/**
 * A call under way: its outcome and how long it took (undefined once the turn is cancelled or
 * over); `repeated` when it was not run, being the same as one earlier in the turn.
 */
export interface StartedCall {
  outcome: Promise<(ToolOutcome & { ms: number; repeated?: boolean }) | undefined>;
}

/** Times `outcome` from now; undefined when `signal` aborted meanwhile. */
export function timed(
  outcome: Promise<ToolOutcome | undefined>,
  signal: AbortSignal,
): StartedCall['outcome'] {
  const started = performance.now();
  return outcome.then((result) =>
    result === undefined || signal.aborted
      ? undefined
      : { ...result, ms: Math.round(performance.now() - started) },
  );
}

/**
 * A call that may run as soon as the model has written it, while the rest of its message is still
 * coming: an HTTP or MCP tool whose requests change nothing (`isSafe`) and that needs no approval. Should the round
 * then fail, nothing was done that the conversation would not know of.
 */
export function startsEarly(tool: Tool | undefined): boolean {
  return (
    (tool?.kind === 'http' || tool?.kind === 'mcp') &&
    !tool.confirm &&
    !tool.background &&
    isSafe(tool)
  );
}

/** Runs `call` now with `executor`, on the turn's call signal (or `signal`), in the turn's `context`. */
export function startCall(
  executor: ToolExecutor,
  ctx: TurnContext,
  call: ToolCallEvent,
  signal: AbortSignal = ctx.callSignal,
  context: ToolCallContext = ctx.toolContext,
): StartedCall {
  const outcome = executor.execute({
    id: call.id,
    name: call.name,
    args: call.arguments,
    ...(call.argumentsValid ? {} : { rawArguments: call.rawArguments }),
    snapshot: ctx.snapshot,
    signal,
    context,
  });
  return { outcome: timed(outcome, signal) };
}
