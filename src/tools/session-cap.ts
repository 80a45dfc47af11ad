/** A tool's `max_calls_per_session`, as a call meets it. Pure: no Nest import. */
import type { Tool } from './tool-definition.js';
import type { ToolOutcome } from './tool-executor.js';
import { toolErrors } from './tool-errors.js';

/**
 * The refusal of a call of `tool` once its `max_calls_per_session` calls have run in the
 * conversation (`made`, by tool); undefined while one more may run.
 */
export function sessionCapRefusal(
  tool: Tool,
  made: ReadonlyMap<string, number> | undefined,
): ToolOutcome | undefined {
  const max = tool.maxCallsPerSession;
  if (max === undefined || !made || (made.get(tool.name) ?? 0) < max) return undefined;
  return { ok: false, text: toolErrors.sessionCap(max) };
}
