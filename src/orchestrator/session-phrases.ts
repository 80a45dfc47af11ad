/**
 * What a session says itself — its wait phrase, its idle prompt — when it, or the assistant that
 * holds it, gave its own (`session.update`'s `phrases`, a handoff's): for a gateway that serves
 * several brands or use cases from one engine. Pure: no Nest import.
 */
import { phraseFor, type Phrases } from '../common/phrases.js';
import type { NamedPhrases, PhraseName } from '../common/named-phrases.js';

interface Speaking {
  settings: { language: string; phrases?: NamedPhrases };
  agent?: { phrases?: NamedPhrases } | null;
}

/** `session`'s own phrase `name` (`""`: nothing), else its assistant's, if either gave one. */
export const ownPhrase = (session: Speaking, name: PhraseName): Phrases | undefined =>
  session.settings.phrases?.[name] ?? session.agent?.phrases?.[name];

/**
 * What `session` says for `name` in its language: its own phrase, else its assistant's, else the
 * engine's (`engine`); of several, the next in turn.
 */
export function sessionPhrase(session: Speaking, name: PhraseName, engine: Phrases): string {
  return phraseFor(ownPhrase(session, name) ?? engine, session.settings.language, session);
}
