/**
 * What a turn tells its user of the calls waiting for their answer or approval, when the user
 * asks them to wait ("one moment": `tool_held`) or to hear their question again ("sorry?": its
 * `tool_question` or `tool_confirm` sent, and said, again); and whether its calls are running (a
 * caller's words are then heard out, see Utterances). Pure: no Nest import.
 */
import type { TurnEvent } from './protocol/server-events.js';

type Asking = Extract<TurnEvent, { type: 'tool_confirm' | 'tool_question' }>;

/** How a session's turn in progress tells of its waiting calls (`Session.waits`). */
export interface WaitsTold {
  /**
   * Calls of the turn are running (between their `tool_call` and their `tool_result`), and the
   * turn's text has asked the user nothing (no `?`): what the user says then is no answer to it.
   */
  readonly calling: boolean;
  /** The user asked the calls `ids` to wait. */
  hold(ids: string[]): void;
  /** The user asked to hear the questions of the calls `ids` again. */
  again(ids: string[]): void;
  /** The user asked whether the agent is there: said so while calls run (false: none runs). */
  stillRunning(): boolean;
}

/**
 * A turn's WaitsTold, sending on `emit`, each hold or ask again `counted`; `see` is shown each
 * event the turn sends.
 */
export function waitsTold(
  emit: (event: TurnEvent) => void,
  counted: (kind: 'hold' | 'again') => void = () => {},
): WaitsTold & { see(event: TurnEvent): void } {
  /** Each call's latest question, until its result. */
  const asked = new Map<string, Asking>();
  const running = new Set<string>();
  let asking = false;
  return {
    see(event) {
      // (Each delta of the answer: two searches of a few characters, until the first `?`.)
      if (event.type === 'assistant_delta')
        asking ||= event.text.includes('?') || event.text.includes('？');
      else if (event.type === 'tool_confirm' || event.type === 'tool_question')
        asked.set(event.id, event);
      else if (event.type === 'tool_call') running.add(event.id);
      else if (event.type === 'tool_result') {
        asked.delete(event.id);
        running.delete(event.id);
      }
    },
    get calling() {
      return running.size > 0 && !asking;
    },
    stillRunning() {
      if (running.size === 0) return false;
      emit({ type: 'tool_still_running', ids: [...running] });
      return true;
    },
    hold(ids) {
      counted('hold');
      emit({ type: 'tool_held', ids });
    },
    again(ids) {
      counted('again');
      for (const id of ids) {
        const event = asked.get(id);
        if (!event) continue;
        // Asked again as first asked: not for want of an answer that fitted.
        const first = { ...event };
        if (first.type === 'tool_question') delete first.unclear;
        emit(first);
      }
    },
  };
}
