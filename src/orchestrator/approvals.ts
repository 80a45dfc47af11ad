import type { Session } from './session.js';

/** What became of a call that needs the user's approval (`"confirm": true`). */
export type Approval = 'approved' | 'declined' | 'expired' | 'cancelled';

/**
 * Waits for the client's `{"type":"tool_confirm","id":…,"approved":…}` for call `id`: declined,
 * unanswered within `timeoutMs`, or cut short by the turn's `signal`, the call does not run.
 */
export function awaitApproval(
  session: Session,
  id: string,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<Approval> {
  return new Promise((resolve) => {
    const done = (result: Approval) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      session.approvals.delete(id);
      resolve(result);
    };
    const onAbort = () => done('cancelled');
    const timer = setTimeout(() => done('expired'), timeoutMs);
    session.approvals.set(id, (approved) => done(approved ? 'approved' : 'declined'));
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) onAbort();
  });
}

/** The text the model reads for a call the user declined or left unanswered. */
export function refusalText(approval: 'declined' | 'expired', timeoutMs: number): string {
  return approval === 'declined'
    ? 'Error: the user declined this call'
    : `Error: the user did not approve this call within ${timeoutMs / 1000}s`;
}
