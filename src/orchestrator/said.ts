/** What the client has the agent say (`say`), as a turn of its own. Pure: no Nest import. */
import { Observable } from 'rxjs';
import type { ChatMessage } from '../llm/llm.types.js';
import { saidMessages } from '../speech/spoken-history.js';
import type { TurnEvent } from './protocol/server-events.js';
import type { Session } from './session.js';

/**
 * The text as the answer of a turn with no request to the model, in the conversation from then
 * on (a barge-in keeps what was heard of it). No trace: the model does nothing in it. `resumed`:
 * the rest of an answer the history holds already (see Conversation's `resumeCut`).
 */
export function sayTurn(session: Session, text: string, resumed = false): Observable<TurnEvent> {
  return new Observable<TurnEvent>((out) => {
    // After the current task, as a model's answer comes: every consumer of a shared turn (the
    // client's events, the speech) has subscribed by then, and none makes it run twice.
    void Promise.resolve().then(() => {
      if (out.closed) return;
      if (!resumed) {
        const said: ChatMessage = { role: 'assistant', content: text };
        saidMessages.add(said);
        session.history.push(said);
      }
      session.turnSpan = undefined;
      out.next({ type: 'assistant_delta', text });
      out.next({ type: 'assistant_end', text, ...(resumed && { resumed: true as const }) });
      out.complete();
    });
  });
}
