/**
 * The tools a conversation calls before its model's first request (`"at_start": true`): what the
 * model would otherwise ask for in its first round (the caller's record by their number, today's
 * opening hours), called by the engine with no arguments at the start of the conversation's first
 * turn that asks the model, and put in the history as the model's own calls and their results.
 * The model's first answer then starts from them, a round of the model sooner. Pure: no Nest import.
 */
import { newCallId } from '../llm/call-ids.js';
import type { ToolCallEvent } from '../llm/llm.types.js';
import type { Tool, ToolSnapshot } from '../tools/tool-definition.js';
import type { ToolExecutor } from '../tools/tool-executor.js';
import { runCalls } from './run-calls.js';
import type { Session } from './session.js';
import type { TurnContext } from './turn-context.js';
import { toolsOf } from './tool-scope.service.js';

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
 * Calls the turn's `at_start` tools, if it is the conversation's first to ask the model: each
 * told the client (`tool_call`, `tool_result`), run at once and in parallel, and put in the history
 * after the user's message as one message of the model's calls and their results, in the order of
 * the tools file. Throws TurnCancelled when the turn is cut meanwhile (as a round's calls do).
 */
export async function callAtStart(executor: ToolExecutor, ctx: TurnContext): Promise<void> {
  const tools = atStartTools(ctx.session, ctx.base);
  ctx.session.startCalled = true;
  if (tools.length === 0) return;
  const calls: ToolCallEvent[] = tools.map((tool) => ({
    type: 'tool_call',
    id: newCallId(),
    name: tool.name,
    arguments: {},
    rawArguments: '{}',
    argumentsValid: true,
  }));
  for (const { id, name } of calls) ctx.emit({ type: 'tool_call', id, name, arguments: {} });
  const started = performance.now();
  await runCalls(executor, ctx, { text: '', calls, reasoning: '' });
  ctx.timings?.toolsWaited(started);
}
