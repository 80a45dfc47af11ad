import { awaitAnswer, awaitEntry } from './awaiting.js';
import type { ServerEvent } from './protocol/server-events.js';
import type { QuestionReply } from './questions.js';
import type { Session } from './session.js';
import type { TurnContext } from './turn-context.js';
import type { ConversationMetrics } from '../metrics/conversation-metrics.js';
import { spokenAnswer, type Phrase } from './spoken-answer.js';

/** What became of a call that needs the user's approval (`"confirm": true`). */
export type Approval = 'approved' | 'declined' | 'expired' | 'cancelled';

/**
 * Waits for the client's `{"type":"tool_confirm","id":…,"approved":…}` for call `id`: declined,
 * unanswered within `timeoutMs`, or cut short by the turn's `signal`, the call does not run; the
 * model reads `refusal` when the user said no or nothing.
 */
export async function awaitApproval(
  session: Session,
  id: string,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<{ approval: Approval; refusal?: string }> {
  const waited = await awaitAnswer(session.approvals, id, signal, timeoutMs);
  const approval = typeof waited === 'string' ? waited : waited.answer ? 'approved' : 'declined';
  const refused = approval === 'declined' || approval === 'expired';
  return { approval, ...(refused && { refusal: refusalText(approval, timeoutMs) }) };
}

/**
 * How a turn of `session` waits for its user's answers (see TurnContext), to approvals and to
 * questions, each counted in `metrics`: each for up to `timeoutMs`, or until `signal` (or the
 * wait's own `until`) aborts. Each answer is told on `session.answered`.
 */
export function userAnswers(
  session: Session,
  signal: AbortSignal,
  timeoutMs: number,
  metrics: Pick<ConversationMetrics, 'approval' | 'question'>,
): Pick<TurnContext, 'approve' | 'hear' | 'questioned'> {
  return {
    approve: async (id, until = signal) => {
      const asked = await awaitApproval(session, id, until, timeoutMs);
      metrics.approval(asked.approval);
      if (asked.approval === 'approved' || asked.approval === 'declined') session.answered.next(id);
      return asked;
    },
    questioned: (outcome) => metrics.question(outcome),
    hear: async (id, wanted, until = signal) => {
      const entry = (reply: (r: QuestionReply) => void) => ({ wanted, reply });
      const waited = await awaitEntry(session.questions, id, until, timeoutMs, entry);
      if (typeof waited !== 'string') session.answered.next(id);
      return waited;
    },
  };
}

/** The text the model reads for a call the user declined or left unanswered. */
function refusalText(approval: 'declined' | 'expired', timeoutMs: number): string {
  return approval === 'declined'
    ? 'Error: the user declined this call'
    : `Error: the user did not approve this call within ${timeoutMs / 1000}s`;
}

/** Calls await approval in `session`, and some phrase would answer them. */
export function answerMayCome(session: Session, phrases: readonly Phrase[]): boolean {
  return session.approvals.size > 0 && phrases.some((p) => p.answer);
}

/**
 * While calls await approval, a plain yes or no, said or typed (TOOL_CONFIRM_YES,
 * TOOL_CONFIRM_NO), answers them, each with a `tool_confirmed` event (a round's calls are asked
 * one at a time: the one just asked); true when it did.
 * Anything else is for a new turn.
 */
export function answerApprovals(
  session: Session,
  text: string,
  phrases: readonly Phrase[],
  send: (event: ServerEvent) => void,
): boolean {
  if (!answerMayCome(session, phrases)) return false;
  const answer = spokenAnswer(text, phrases);
  if (answer === undefined) return false;
  settle(session, answer === 'yes', send);
  return true;
}

/**
 * While calls await approval, an entry on the phone's keypad that is only the yes or the no key
 * (TOOL_CONFIRM_KEY_YES, TOOL_CONFIRM_KEY_NO; `#` after it let be) answers them; true when it did.
 */
export function answerApprovalsByKeys(
  session: Session,
  keys: string,
  confirmKeys: { yes: string; no: string },
  send: (event: ServerEvent) => void,
): boolean {
  if (session.approvals.size === 0) return false;
  const key = keyOf(keys);
  if (key !== confirmKeys.yes && key !== confirmKeys.no) return false;
  settle(session, key === confirmKeys.yes, send);
  return true;
}

/** The one key of an entry (`1`, `1#`), or the entry as it is. */
export function keyOf(keys: string): string {
  return keys.length === 2 && keys.endsWith('#') ? keys[0]! : keys;
}

/** Answers every call awaiting approval, each with a `tool_confirmed` event. */
function settle(session: Session, approved: boolean, send: (event: ServerEvent) => void): void {
  for (const [id, waiting] of [...session.approvals]) {
    send({ type: 'tool_confirmed', id, approved });
    waiting(approved);
  }
}

/**
 * A tool's `confirm_prompt` for one call: each `{param}` is the argument's value (text as it is,
 * anything else as JSON); a placeholder with no argument is left out.
 */
export function confirmPrompt(template: string, args: Record<string, unknown>): string {
  return template
    .replace(/\{([^{}]+)\}/g, (_, name: string) => {
      if (!Object.hasOwn(args, name) || args[name] === null || args[name] === undefined) return '';
      const value = args[name];
      return typeof value === 'string' ? value : JSON.stringify(value);
    })
    .replace(/[ \t]{2,}/g, ' ')
    .replace(/ +([?!.,])/g, '$1')
    .trim();
}
