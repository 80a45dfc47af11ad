/**
 * An answer that says the assistant has done something — "I've booked your table for eight.",
 * "Ho inviato il messaggio." — in a conversation where no call that acts has succeeded: nothing
 * was done, and the caller hangs up believing it was (`LLM_TOOL_NUDGE`). Models do this after a
 * user's "yes, go ahead". Only the assistant's own first-person claims count ("I've sent"), not
 * what a lookup reported ("your parcel has been sent"), and not one denied ("I haven't booked it
 * yet", "Non ho prenotato"). In the six languages of the engine's own phrases.
 * Pure: no Nest import.
 */
import { plainWords } from '../common/plain-words.js';
import type { ChatMessage } from '../llm/llm.types.js';
import { isSafe, type Tool } from '../tools/tool-definition.js';

/** What is done, as the claim's verb is written (accents folded by plainWords). */
const words = (list: string) => new Set(list.split(' '));
const EN = words(
  'booked reserved sent texted emailed cancelled canceled scheduled rescheduled placed ordered updated changed added removed deleted transferred submitted created paid confirmed registered forwarded charged refunded',
);
const IT = words(
  'prenotato inviato mandato spedito cancellato annullato fissato ordinato aggiornato confermato registrato modificato trasferito pagato aggiunto rimosso eliminato programmato',
);
const ES = words(
  'reservado enviado mandado cancelado anulado programado agendado pedido actualizado confirmado registrado cambiado transferido pagado anadido eliminado',
);
const FR = words(
  'reserve envoye annule programme commande confirme enregistre modifie transfere paye ajoute supprime',
);
const DE = words(
  'gebucht reserviert gesendet geschickt verschickt storniert abgesagt bestellt aktualisiert bestatigt eingetragen geandert uberwiesen bezahlt hinzugefugt geloscht geplant vereinbart',
);
const PT = words(
  'reservei enviei mandei cancelei agendei marquei atualizei confirmei registrei registei alterei transferi paguei adicionei removi',
);
/** What is made: "I've made a reservation". */
const MADE = words('reservation booking appointment order payment transfer');

/** The words before a word of `done` that make a claim of it, written with `*` for that word. */
const cues = (done: Set<string>, ...phrases: string[]) =>
  phrases.map((phrase) => ({ cue: phrase.split(' '), done }));
const CLAIMS = [
  ...cues(
    EN,
    "i've *",
    'i have *',
    "i've just *",
    'i have just *',
    'i just *',
    'i *',
    'ahead and *',
  ),
  ...cues(IT, 'ho *', "l'ho *", 'ho appena *', 'ho gia *'),
  ...cues(ES, 'he *', 'lo he *', 'la he *', 'ya he *'),
  ...cues(FR, "j'ai *", "je l'ai *", "j'ai bien *"),
  ...cues(PT, '*', 'ja *'),
  ...cues(
    MADE,
    "i've made a *",
    "i've made your *",
    "i've made the *",
    'i have made a *',
    'i have made your *',
  ),
];
/** Words that deny the claim right after them: "non ho", "no he", "não reservei", "never". */
const DENIALS = new Set(['not', 'never', 'non', 'no', 'nunca', 'nao', 'jamais', 'mai']);
/** German puts the verb last: "Ich habe Ihren Tisch nicht gebucht." denies it anywhere. */
const GERMAN_DENIALS = new Set(['nicht', 'kein', 'keine', 'keinen', 'nie']);

/** Whether a sentence's words claim a thing done, at some place (see CLAIMS). */
function claims(said: string[]): boolean {
  if (said.includes('ich') && said.includes('habe') && !said.some((w) => GERMAN_DENIALS.has(w)))
    if (said.slice(said.indexOf('habe')).some((w) => DE.has(w))) return true;
  return CLAIMS.some(({ cue, done }) =>
    said.some(
      (_, i) =>
        cue.every((w, k) => (w === '*' ? done.has(said[i + k] ?? '') : said[i + k] === w)) &&
        !DENIALS.has(said[i - 1] ?? ''),
    ),
  );
}

/** The first sentence of `text` that claims a thing done (see above), not a question; else undefined. */
export function claimedAction(text: string): string | undefined {
  for (const sentence of text.split(/(?<=[.!?…])\s+|\n+/)) {
    const trimmed = sentence.trim();
    if (trimmed === '' || trimmed.endsWith('?')) continue;
    if (claims(plainWords(trimmed))) return trimmed.replace(/[\s.!…]+$/u, '');
  }
  return undefined;
}

/**
 * Whether a call of a tool that acts (not `safe`, see isSafe; or one the client runs) has
 * succeeded in the conversation `history`: then a claim may be of what it did.
 */
export function actedIn(
  history: readonly ChatMessage[],
  tools: readonly Tool[],
  clientTools: Iterable<string>,
): boolean {
  const acting = new Set([...tools.filter((t) => !isSafe(t)).map((t) => t.name), ...clientTools]);
  const names = new Map<string, string>();
  for (const message of history) {
    if (message.role === 'assistant')
      for (const call of message.tool_calls ?? []) names.set(call.id, call.function.name);
    else if (
      message.role === 'tool' &&
      acting.has(names.get(message.tool_call_id) ?? '') &&
      !message.content.startsWith('Error')
    )
      return true;
  }
  return false;
}
