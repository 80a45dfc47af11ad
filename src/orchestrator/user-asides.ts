/**
 * The user's words that start no turn of their own. Pure: no Nest import.
 */
import type { Transcription } from '../speech/speech.service.js';
import { acknowledges, checksIn, continues } from './hold-on.js';
import type { ServerEvent } from './protocol/server-events.js';
import { answerWaiting } from './questions.js';
import type { Session } from './session.js';
import type { Phrase } from './spoken-answer.js';

/** What such words were: said over an answer the agent may go on with, an answer, an aside. */
export type Aside = 'continues' | 'answered' | 'acknowledged' | 'checked';

/**
 * Takes the user's `text` if it starts no turn — an answer cut by "mm-hmm" goes on, a waiting
 * call's question or approval is answered, "okay" or "hello?" heard out while calls ran — and
 * says which; undefined when it is a turn. An answer cut before other words does not go on.
 */
export function takeAside(
  session: Session,
  text: string,
  {
    heard,
    heardOut,
    user,
    resumed,
  }: { heard?: Transcription; heardOut: boolean; user: boolean; resumed: boolean },
  phrases: readonly Phrase[],
  send: (event: ServerEvent) => void,
): Aside | undefined {
  // "Mm-hmm" said over the agent: a listener's sound, not a turn of theirs; the answer goes on.
  if (heard && !heardOut && session.cut && continues(text)) return 'continues';
  if (!resumed) session.cut = undefined;
  // The answer to a call's question, or to calls awaiting approval, starts no turn.
  if (user && answerWaiting(session, text, phrases, send)) return 'answered';
  // Nor does "okay, thanks" said while calls ran, nor "hello?" while the turn goes on (said to
  // be, if its calls still run): the answer is coming.
  if (!heardOut || session.approvals.size > 0) return undefined;
  if (acknowledges(text)) return 'acknowledged';
  if (checksIn(text) && session.busy) {
    session.waits?.stillRunning();
    return 'checked';
  }
  return undefined;
}
