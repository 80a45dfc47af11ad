/**
 * What a code tool tells and asks its user while it runs: how far it has got
 * (`context.report_progress`, to the client as `tool_progress`), a yes-or-no question
 * (`context.confirm`, asked as approvals are) and a question wanting a value (`context.ask`).
 * Pure: no Nest import.
 */
import type { ToolInvocation, ToolProgress, UserAnswer } from '../tools/tool-executor.js';
import type { Wanted } from '../tools/user-question.js';

export interface CodeUser {
  report?: (update: ToolProgress) => void;
  ask?: (question: string, wanted?: Wanted) => Promise<UserAnswer>;
}

const bound = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) ? n : undefined);

/** What `context.ask` wants (checked in Python: this only keeps what fits). */
export function askedFor(raw: unknown): Wanted {
  const { type, choices, minimum, maximum } = (raw ?? {}) as Record<string, unknown>;
  if ((type === 'choice' || type === 'choices') && Array.isArray(choices)) {
    const titles = choices.filter((c): c is string => typeof c === 'string' && c.trim() !== '');
    const options = titles.map((title) => ({ title, value: title }));
    if (titles.length > 0 && type === 'choice') return { type, choices: options };
    // Ticked: as many as minimum and maximum allow.
    if (titles.length > 0)
      return { type, choices: options, minItems: bound(minimum), maxItems: bound(maximum) };
  }
  if (type === 'number' || type === 'integer')
    return { type, minimum: bound(minimum), maximum: bound(maximum) };
  return { type: 'text' };
}

/** `call`'s user, as its context reaches them; `hold` keeps the call's time still while asking. */
export function userSide(
  call: ToolInvocation,
  hold: <T>(wait: () => Promise<T>) => Promise<T> = (wait) => wait(),
): CodeUser {
  const { progress, ask } = call.context ?? {};
  return {
    ...(progress && { report: (update: ToolProgress) => progress(call.id, update) }),
    ...(ask && {
      ask: (question: string, wanted?: Wanted) => hold(() => ask(call.id, question, wanted)),
    }),
  };
}
