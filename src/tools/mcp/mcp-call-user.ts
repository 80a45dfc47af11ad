/**
 * What a call's server may tell or ask its user while the call runs: its progress
 * (`notifications/progress`, to the client as `tool_progress`) and a question (`elicitation/create`:
 * a yes or no asked as approvals are, or a value). Pure: no Nest import.
 */
import { maskSecrets } from '../tool-secrets.js';
import type { ToolInvocation } from '../tool-executor.js';
import { progressUpdate } from '../tool-progress.js';
import type { Wanted } from '../user-question.js';
import type { McpLimits } from './mcp-target.js';

/** The limits of `call` that reach its user, the tool's `secrets` masked in what they are told. */
export function userSide(
  call: ToolInvocation,
  secrets: Record<string, string>,
): Pick<McpLimits, 'onProgress' | 'asker'> {
  const { progress, ask, sessionId, model } = call.context ?? {};
  return {
    ...(progress && {
      onProgress: (raw) => {
        const update = progressUpdate(raw, secrets);
        if (update) progress(call.id, update);
      },
    }),
    asker: {
      session: sessionId,
      ...(model && { model }),
      ...(ask && {
        ask: (question: string, wanted?: Wanted, signal?: AbortSignal) =>
          ask(call.id, maskSecrets(question, secrets), wanted, signal),
      }),
    },
  };
}
