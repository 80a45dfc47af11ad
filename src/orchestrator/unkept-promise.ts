/**
 * An answer that ends promising to act — "Let me check that for you.", "Un attimo, controllo." —
 * with no call made (`LLM_TOOL_NUDGE`). Models do this (Qwen, Llama, GPT and Claude alike): the
 * caller hears "let me check" and then nothing, the turn over. Such a round is asked once more,
 * told that nothing ran. Only the answer's last sentence counts, and only when it is no question
 * (an offer, "Shall I check?", promises nothing) and nothing follows the promise after a colon
 * ("Let me check: it is sunny."), nor a condition ("I'll book it once you confirm.", "… if you
 * confirm", but "let me check if…" promises). In the six
 * languages of the engine's own phrases.
 * Pure: no Nest import.
 */
import { plainWords } from '../common/plain-words.js';
import type { ChatMessage } from '../llm/llm.types.js';
import type { RoundResult } from './round.js';
import type { TurnContext } from './turn-context.js';
import { actedIn, claimedAction } from './claimed-actions.js';
import { unsearchedRefusal } from './unsearched-refusal.js';

const PROMISES = [
  // English
  'let me check',
  'let me look',
  'let me see',
  'let me find',
  'let me get',
  'let me pull',
  'let me search',
  'let me verify',
  'let me confirm',
  'let me book',
  "i'll check",
  'i will check',
  "i'll look",
  'i will look',
  "i'll find",
  "i'll search",
  "i'll get",
  "i'll pull",
  "i'll book",
  "i'm checking",
  'i am checking',
  "i'm looking",
  'checking now',
  'looking that up',
  'one moment',
  'one second',
  'just a moment',
  'just a second',
  'give me a moment',
  'give me a second',
  'bear with me',
  // Italian
  'controllo subito',
  'lo controllo',
  'verifico subito',
  'fammi controllare',
  'fammi verificare',
  'lasciami controllare',
  'mi faccia controllare',
  'mi faccia verificare',
  'sto controllando',
  'sto verificando',
  'vado a controllare',
  'cerco subito',
  'un attimo',
  // Spanish
  'déjame comprobar',
  'déjame revisar',
  'déjame ver',
  'déjame buscar',
  'déjeme comprobar',
  'déjeme revisar',
  'permítame comprobar',
  'permítame revisar',
  'voy a comprobar',
  'voy a revisar',
  'voy a buscar',
  'lo compruebo',
  'lo reviso',
  'estoy comprobando',
  'estoy revisando',
  'estoy buscando',
  'un momento',
  // French
  'laissez-moi vérifier',
  'laisse-moi vérifier',
  'laissez-moi regarder',
  'je vérifie',
  'je regarde',
  'je vais vérifier',
  'je vais regarder',
  'je cherche',
  'un instant',
  'une seconde',
  // German
  'einen moment',
  'einen augenblick',
  'ich schaue nach',
  'ich sehe nach',
  'ich prüfe',
  'ich überprüfe',
  'ich werde nachsehen',
  'ich werde prüfen',
  'lassen sie mich nachsehen',
  'lassen sie mich prüfen',
  'lass mich nachsehen',
  'lass mich prüfen',
  // Portuguese
  'deixe-me verificar',
  'deixa-me ver',
  'deixe-me ver',
  'vou verificar',
  'vou procurar',
  'estou verificando',
  'estou a verificar',
  'um momento',
  'só um momento',
].map(plainWords);

/** Words of a promise for later, not now: "I'll check once you tell me the date." */
const CONDITIONS = new Set(
  [
    ...['once', 'later', 'tomorrow', 'unless', 'soon'],
    ...['appena', 'dopo', 'domani'],
    ...['luego', 'después', 'mañana'],
    ...['lorsque', 'après', 'demain'],
    ...['sobald', 'nachdem', 'später', 'morgen', 'falls', 'wenn'],
    ...['depois', 'amanhã'],
  ].map((w) => plainWords(w).join(' ')),
);

/**
 * Verbs after which "if" means whether ("let me check if there is a table": a promise), where
 * elsewhere it sets a condition ("I'll book it if you confirm": the model waits for the user).
 */
const WHETHER_AFTER = new Set(['check', 'see', 'look', 'verify', 'confirm', 'find', 'ask']);

/** A sentence longer than this is more than a promise. */
const MAX_WORDS = 20;

/**
 * The last sentence of `text` when it promises to act (see above); else undefined.
 */
export function unkeptPromise(text: string): string | undefined {
  const end = text.trimEnd();
  if (end.endsWith('?')) return undefined;
  const body = end.replace(/[\s.!…"'”’»)]+$/u, '');
  const last = body
    .slice(Math.max(...['.', '!', '?', '…', '\n'].map((c) => body.lastIndexOf(c))) + 1)
    .trim();
  if (last === '' || last.includes(':')) return undefined;
  const words = plainWords(last);
  const condition = (w: string, i: number) =>
    CONDITIONS.has(w) || (w === 'if' && !WHETHER_AFTER.has(words[i - 1] ?? ''));
  if (words.length > MAX_WORDS || words.some(condition)) return undefined;
  const promises = PROMISES.some((cue) =>
    words.some((_, i) => cue.every((w, k) => words[i + k] === w)),
  );
  return promises ? last : undefined;
}

/**
 * A round asked once more: its answer (`text`), the `sentence` that promised (or claimed) to act,
 * which it was, and whether the request after it is still to come or running (`open`).
 */
export interface Nudge {
  text: string;
  sentence: string;
  kind: 'promise' | 'claim' | 'refusal';
  open: boolean;
  /** A refusal's: the search tool the model is to call (unsearched-refusal.ts). */
  search?: string;
}

/** What the model reads after such an answer, for its next request only. */
export function nudgeNote({
  sentence,
  kind,
  search,
}: Pick<Nudge, 'sentence' | 'kind' | 'search'>): ChatMessage {
  if (kind === 'refusal')
    return {
      role: 'user',
      content: `(A note from the engine, not from the user: you said "${sentence}", but you have not looked for a tool that can: only some tools are in your list. Call ${search} now with a few words of what the user asked; if it finds nothing that can, tell the user so. Do not say again what you already said.)`,
    };
  const done =
    kind === 'claim'
      ? 'but no tool call has done that in this conversation, so it has not been done'
      : 'but you made no tool call, so nothing has been done';
  const tell = kind === 'claim' ? 'tell the user that it has not been done' : 'tell the user so';
  return {
    role: 'user',
    content: `(A note from the engine, not from the user: you said "${sentence}", ${done}. Tools run only when you call them. Make the call now; if you need something from the user first, or no tool can do it, ${tell}. Do not say again what you already said.)`,
  };
}

/**
 * After a round that made no call, whether to ask once more: its answer ends promising to act,
 * or says a thing was done that no call in the conversation did (claimed-actions.ts), or says it
 * cannot while a search could find tools it was not offered (unsearched-refusal.ts), tools were
 * offered and the turn has asked no such question yet. Sets `ctx.nudge`.
 */
export function nudges(
  ctx: Pick<TurnContext, 'nudge' | 'snapshot' | 'clientTools' | 'session' | 'toolContext'>,
  round: RoundResult,
): boolean {
  if (ctx.nudge || round.calls.length > 0) return false;
  if (ctx.snapshot.tools.length === 0 && ctx.clientTools.size === 0) return false;
  const promise = unkeptPromise(round.text);
  const claim = promise === undefined ? claimedAction(round.text) : undefined;
  if (
    claim !== undefined &&
    actedIn(ctx.session.history, ctx.snapshot.tools, ctx.clientTools.keys())
  )
    return false;
  const sentence = promise ?? claim;
  if (sentence === undefined) {
    const { findable } = ctx.toolContext;
    const refused = unsearchedRefusal(round.text, ctx.snapshot, findable, ctx.session.history);
    if (!refused) return false;
    ctx.nudge = { text: round.text, ...refused, kind: 'refusal', open: true };
    return true;
  }
  ctx.nudge = { text: round.text, sentence, kind: promise ? 'promise' : 'claim', open: true };
  return true;
}

/**
 * The round asked after the note has ended: when it made calls, the promise and its text are one
 * assistant message (the promise, kept in the history as the round before ended, is taken back
 * into `round`), as though the model had said it and called at once. How it went: `called` or
 * `answered`.
 */
export function nudgeAnswered(
  ctx: Pick<TurnContext, 'nudge' | 'session'>,
  round: RoundResult,
): 'called' | 'answered' {
  const { nudge, session } = ctx;
  nudge!.open = false;
  if (round.calls.length === 0) return 'answered';
  const last = session.history.at(-1);
  if (last?.role === 'assistant' && !last.tool_calls && last.content === nudge!.text) {
    session.history.pop();
    round.text = round.text === '' ? nudge!.text : `${nudge!.text} ${round.text}`;
  }
  return 'called';
}
