/**
 * What a user says to ask a waiting question or approval to wait ("one moment", "let me think",
 * "un attimo", "einen Augenblick"), or to hear it again ("sorry?", "can you repeat that?", "come
 * scusi?", "wie bitte?"): it answers nothing and starts no turn; the question waits on, its time
 * allowed started again (`holdWaits`), asked again only when the user asked to hear it. And what
 * a caller says to acknowledge the agent while its tools run ("okay, thanks"). In the languages of
 * the default yes and no phrases; a word those lists hold ("wait" is a no) is theirs. Pure: no
 * Nest import.
 */
import { ACK, AGAIN, CHECK, CONTINUE, HOLD } from './hold-on-phrases.js';
import { compilePhrases, spokenAnswer } from './spoken-answer.js';

/**
 * The holds, the asks to hear it again, the acknowledgements and the check-ins, matched as TOOL_CONFIRM_YES's
 * phrases are: nothing else but fillers around them.
 */
const HOLDS = compilePhrases({ yes: HOLD, no: [] });
const AGAINS = compilePhrases({ yes: AGAIN, no: [] });
const ACKS = compilePhrases({ yes: [...ACK, ...HOLD], no: [] });
const CHECKS = compilePhrases({ yes: CHECK, no: [] });
const CONTINUES = compilePhrases({ yes: CONTINUE, no: [] });

/** Whether `text` only says "go on" ("mm-hmm"), or hesitates ("um"), to a speaker. */
export function continues(text: string): boolean {
  return spokenAnswer(text, CONTINUES) === 'yes';
}

/** Whether `text` only asks whether the agent is there ("hello? are you still there?"). */
export function checksIn(text: string): boolean {
  return spokenAnswer(text, CHECKS) === 'yes';
}

/** Whether `text` only acknowledges the agent ("okay, thanks"), or asks it to take its time. */
export function acknowledges(text: string): boolean {
  return spokenAnswer(text, ACKS) === 'yes';
}

/**
 * Whether `text` only asks the waiting question to wait (`hold`), or to be asked again (`again`).
 */
export function waitAsked(text: string): 'hold' | 'again' | undefined {
  if (spokenAnswer(text, HOLDS) === 'yes') return 'hold';
  if (spokenAnswer(text, AGAINS) === 'yes') return 'again';
  return undefined;
}
