/**
 * The tools a conversation calls before its model's first request (`"at_start": true`): what the
 * model would otherwise ask for in its first round (the caller's record by their number, today's
 * opening hours), called by the engine with no arguments at the start of the conversation's first
 * turn that asks the model, and put in the history as the model's own calls and their results.
 * The model's first answer then starts from them, a round of the model sooner. Pure: no Nest import.
 */
import { newCallId } from '../llm/call-ids.js';
import type { ToolCallEvent } from '../llm/llm.types.js';
import { isSafe, type Tool, type ToolSnapshot } from '../tools/tool-definition.js';
import type { ToolExecutor } from '../tools/tool-executor.js';
import { timed, type StartedCall } from './call-start.js';
import { runCalls } from './run-calls.js';
import type { Session } from './session.js';
import type { TurnContext } from './turn-context.js';
import { toolContextOf, toolsOf } from './session-tools.js';

/**
 * `at_start` calls begun before the turn that reads them, as soon as the user's audio began: by
 * tool name, with the session's variables they were made with.
 */
export interface EarlyCalls {
  variables: Readonly<Record<string, string>>;
  calls: Map<string, { call: ToolCallEvent; run: StartedCall }>;
}

const callOf = (tool: Tool): ToolCallEvent => ({
  type: 'tool_call',
  id: newCallId(),
  name: tool.name,
  arguments: {},
  rawArguments: '{}',
  argumentsValid: true,
});

/**
 * The `at_start` tools `session` calls in its first turn that asks the model: those its model is
 * offered (its selection, its assistant's, its modality); none once they have been called (a
 * resumed session's too).
 */
export function atStartTools(session: Session, snapshot: ToolSnapshot): Tool[] {
  if (session.startCalled) return [];
  const only = toolsOf(session);
  const { modality } = session.settings;
  return snapshot.tools.filter(
    (tool) =>
      tool.atStart &&
      (!tool.modalities || tool.modalities.includes(modality)) &&
      (only === null || only.includes(tool.name)),
  );
}

/**
 * The user has begun to speak (the session's audio, each frame) in a conversation whose
 * `at_start` calls are still to come: those that change nothing (`safe`) begin now, on the
 * connection's signal, so that their answers are there by the end of the utterance and its
 * transcription. Once.
 */
export function callEarly(
  session: Session,
  tools: () => ToolSnapshot,
  executor: ToolExecutor,
): void {
  const signal = session.background?.signal;
  if (session.startCalled || session.earlyCalls || !signal) return;
  const snapshot = tools();
  const early: EarlyCalls = { variables: session.settings.variables, calls: new Map() };
  session.earlyCalls = early;
  const context = toolContextOf(session, 'at-start');
  for (const tool of atStartTools(session, snapshot).filter(isSafe)) {
    const call = callOf(tool);
    const outcome = executor.execute({
      id: call.id,
      name: call.name,
      args: call.arguments,
      snapshot,
      signal,
      context,
    });
    early.calls.set(tool.name, { call, run: { outcome: timed(outcome, signal) } });
  }
}

/**
 * Calls the turn's `at_start` tools, if it is the conversation's first to ask the model: each
 * told the client (`tool_call`, `tool_result`), run at once and in parallel (or taken as begun
 * early, when the session's variables are still those they were made with), and put in the
 * history after the user's message as one message of the model's calls and their results, in the
 * order of the tools file. Throws TurnCancelled when the turn is cut meanwhile (as a round's calls
 * do).
 */
export async function callAtStart(executor: ToolExecutor, ctx: TurnContext): Promise<void> {
  const { session } = ctx;
  const tools = atStartTools(session, ctx.base);
  const early = session.earlyCalls?.variables === session.settings.variables && session.earlyCalls;
  session.startCalled = true;
  session.earlyCalls = undefined;
  if (tools.length === 0) return;
  const calls = tools.map((tool) => {
    const begun = early ? early.calls.get(tool.name) : undefined;
    if (!begun) return callOf(tool);
    ctx.started.set(begun.call.id, begun.run);
    return begun.call;
  });
  for (const { id, name } of calls) ctx.emit({ type: 'tool_call', id, name, arguments: {} });
  const started = performance.now();
  await runCalls(executor, ctx, { text: '', calls, reasoning: '' });
  ctx.timings?.toolsWaited(started);
}
