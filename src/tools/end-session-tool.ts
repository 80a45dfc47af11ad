/**
 * `"type": "end_session"`: a tool the engine runs itself, with which the model ends the
 * conversation (hangs up the call) when it is over: the session closes once the turn's answer,
 * a goodbye, has been given. Pure: no Nest import.
 */
import type { Tool, ToolDefinitionInput } from './tool-definition.js';
import { ownTool } from './definition-fields.js';
import type { ToolInvocation, ToolOutcome } from './tool-executor.js';

/** What the model reads of the tool when its definition gives no description. */
export const END_SESSION_DESCRIPTION =
  'Ends the conversation and hangs up once your reply has been said. Call it when the user says goodbye or asks to end the call, or when nothing is left to do; say a short goodbye in the same reply.';

/** What the model reads after calling it: the turn goes on, so that it may still say goodbye. */
export const END_SESSION_RESULT =
  'The conversation ends once this reply has been given: say a short goodbye now if you have not.';

export function endSessionTool(def: ToolDefinitionInput): Tool {
  return ownTool('end_session', def, END_SESSION_DESCRIPTION);
}

/** A call of the tool: the session (if the call has one) ends after its turn. */
export function endSession(call: ToolInvocation): ToolOutcome {
  const end = call.context?.endSession;
  if (!end) return { ok: false, text: 'Error: there is no conversation to end here (no session)' };
  end();
  return { ok: true, text: END_SESSION_RESULT };
}
