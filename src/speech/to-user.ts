/**
 * What a turn's speech says to the user, after the text so far, of the calls waiting for them,
 * and which calls that is about. Pure: no Nest import.
 */
import type { TurnEvent } from '../orchestrator/protocol/server-events.js';
import { spokenQuestion } from '../tools/spoken-question.js';
import type { SpeakOptions } from './speak-options.js';

type Phrases = Pick<
  SpeakOptions,
  'language' | 'confirmPhrase' | 'holdPhrase' | 'stillHerePhrase' | 'unclearPhrase'
>;

/**
 * What is said to the user of `event`: a call's question (and a choice's options) — `question`,
 * its own words, said again alone when it goes unanswered — or the answer to the user's asking
 * the calls to wait, or whether the agent is there; undefined for any other event.
 */
export function toUser(
  event: TurnEvent,
  options: Phrases,
): { said: string | undefined; question?: string } | undefined {
  // Read when needed: each is in the language of the moment (a handoff may change it).
  if (event.type === 'tool_confirm') {
    const question = event.prompt || options.confirmPhrase;
    return { said: question, question };
  }
  if (event.type === 'tool_held') return { said: options.holdPhrase };
  if (event.type === 'tool_still_running') return { said: options.stillHerePhrase };
  if (event.type !== 'tool_question') return undefined;
  const again = event.unclear !== undefined;
  const question = spokenQuestion(event.prompt, event.answer, options.language, again);
  const sorry = again ? options.unclearPhrase : undefined;
  return { said: sorry ? `${sorry} ${question}` : question, question };
}

/**
 * The calls waiting for the user's answer that `event`, said, is about (its question, the hold
 * phrase): once they are all answered, it is not said on.
 */
export function asksOf(event: TurnEvent): readonly string[] | undefined {
  if (event.type === 'tool_confirm' || event.type === 'tool_question') return [event.id];
  return event.type === 'tool_held' ? event.ids : undefined;
}
