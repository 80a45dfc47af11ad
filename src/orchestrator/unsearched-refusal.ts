/**
 * An answer that says the assistant cannot do what was asked — "I'm sorry, I can't refund
 * invoices.", "Non posso farlo." — in a turn that called nothing, while a `tool_search` tool could
 * find tools the request did not offer (`deferred`): the model gave up on the tools in its list
 * without looking for the others (`LLM_TOOL_NUDGE`). Such a round is asked once more, told to
 * search first. What the assistant cannot hear or understand is no refusal. In the six languages
 * of the engine's own phrases. Pure: no Nest import.
 */
import { plainWords } from '../common/plain-words.js';
import type { ChatMessage } from '../llm/llm.types.js';
import type { ToolSnapshot } from '../tools/tool-definition.js';
import type { Catalogue } from '../tools/tool-index.js';
import { unfound } from '../tools/tool-search.js';

const REFUSALS = [
  // English
  "i can't",
  'i cannot',
  'i can not',
  "i'm unable to",
  'i am unable to',
  "i'm not able to",
  'i am not able to',
  "i don't have access",
  'i do not have access',
  "i don't have a tool",
  'i do not have a tool',
  "i don't have the ability",
  'i have no way to',
  'not something i can',
  'not able to help with',
  // Italian
  'non posso',
  'non riesco',
  'non sono in grado',
  'non ho accesso',
  'non ho modo',
  'non ho uno strumento',
  // Spanish
  'no puedo',
  'no soy capaz',
  'no tengo acceso',
  'no me es posible',
  'no tengo una herramienta',
  // French
  'je ne peux pas',
  'je ne suis pas en mesure',
  "je n'ai pas accès",
  // German
  'ich kann nicht',
  'ich kann das nicht',
  'ich kann ihnen nicht',
  'ich kann dir nicht',
  'ich bin nicht in der lage',
  'ich habe keinen zugriff',
  // Portuguese
  'não posso',
  'não consigo',
  'não sou capaz',
  'não tenho acesso',
].map(plainWords);

/** How the words that follow a refusal of the senses, not of a task, begin: "I can't hear you". */
const SENSES = [
  ...['hear', 'understand', 'catch'],
  ...['sent', 'capi'],
  ...['oir', 'oig', 'entend', 'escuch'],
  ...['comprend'],
  ...['hore', 'versteh'],
  ...['ouv', 'ouc'],
];

/** The sentence of `text` that refuses a task (see above), if one does; else undefined. */
export function refusal(text: string): string | undefined {
  for (const sentence of text.split(/(?<=[.!?…])\s+|\n+/)) {
    const words = plainWords(sentence);
    for (let i = 0; i < words.length; i++) {
      const cue = REFUSALS.find((c) => c.every((w, k) => words[i + k] === w));
      if (!cue) continue;
      // "I can't hear you", "non riesco a sentirla": the line, not the task.
      const next = words.slice(i + cue.length, i + cue.length + 3);
      if (next.some((w) => SENSES.some((stem) => w.startsWith(stem)))) continue;
      return sentence.trim();
    }
  }
  return undefined;
}

/** Whether the history since the user's latest message holds a call (the turn's so far). */
function calledSinceUser(history: readonly ChatMessage[]): boolean {
  for (let i = history.length - 1; i >= 0; i--) {
    const message = history[i]!;
    if (message.role === 'user') return false;
    if (message.role === 'assistant' && (message.tool_calls?.length ?? 0) > 0) return true;
  }
  return false;
}

/**
 * The search tool the model should have called before refusing in `text`: one `snapshot` offers,
 * with deferred tools of `findable` it does not offer yet, in a turn that has called nothing;
 * else undefined.
 */
export function unsearchedRefusal(
  text: string,
  snapshot: ToolSnapshot,
  findable: Catalogue | undefined,
  history: readonly ChatMessage[],
): { sentence: string; search: string } | undefined {
  const search = snapshot.tools.find((t) => t.kind === 'tool_search');
  if (!search || !findable) return undefined;
  if (unfound(findable, snapshot).length === 0 || calledSinceUser(history)) return undefined;
  const sentence = refusal(text);
  return sentence === undefined ? undefined : { sentence, search: search.name };
}
