/**
 * What a code tool tells and asks its user while it runs: how far it has got
 * (`context.report_progress`, to the client as `tool_progress`) and a yes-or-no question
 * (`context.confirm`, asked as approvals are). Pure: no Nest import.
 */
import type { ToolInvocation, ToolProgress, UserAnswer } from '../tools/tool-executor.js';

export interface CodeUser {
  report?: (update: ToolProgress) => void;
  ask?: (question: string) => Promise<UserAnswer>;
}

/** `call`'s user, as its context reaches them; `hold` keeps the call's time still while asking. */
export function userSide(
  call: ToolInvocation,
  hold: <T>(wait: () => Promise<T>) => Promise<T> = (wait) => wait(),
): CodeUser {
  const { progress, ask } = call.context ?? {};
  return {
    ...(progress && { report: (update: ToolProgress) => progress(call.id, update) }),
    ...(ask && { ask: (question: string) => hold(() => ask(call.id, question)) }),
  };
}
