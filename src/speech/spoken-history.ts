import type { ChatMessage } from '../llm/llm.types.js';

/**
 * Assistant messages the client had the agent say (`say`): each begins a turn of its own, as a
 * user message does, for what a barge-in keeps of it.
 */
export const saidMessages = new WeakSet<ChatMessage>();

/**
 * After a barge-in, keeps in the interrupted turn's assistant messages only the text whose
 * audio was sent: the prefix of the visible answer that ends with the last spoken sentence.
 * Tool-call messages and their tool messages are kept (never a call without its result).
 */
export function keepSpokenOnly(history: ChatMessage[], spokenSentences: string[]): ChatMessage[] {
  const { turnStart, cursor } = heardOfAnswer(history, spokenSentences);
  let budget = cursor;
  const out = history.slice(0, turnStart + 1);
  for (const message of history.slice(turnStart + 1)) {
    if (message.role !== 'assistant' || message.content === null) {
      out.push(message);
      continue;
    }
    const kept = message.content.slice(0, budget);
    budget -= kept.length;
    if (message.tool_calls) out.push({ ...message, content: kept === '' ? null : kept });
    else if (kept.trim() !== '') out.push({ ...message, content: kept });
  }
  return out;
}

/** The last turn's answer in `history`, where it starts, and how much of it `heard` covers. */
function heardOfAnswer(history: ChatMessage[], heard: string[]) {
  const turnStart = history.findLastIndex(
    (m, i) => m.role === 'user' || saidMessages.has(history[i + 1]!),
  );
  const answer = history
    .slice(turnStart + 1)
    .map((m) => (m.role === 'assistant' ? (m.content ?? '') : ''))
    .join('');
  let cursor = 0;
  for (const sentence of heard) {
    const found = findLoosely(answer, sentence, cursor);
    if (found === undefined) break;
    cursor = found;
  }
  return { turnStart, answer, cursor };
}

/** The last turn's answer in `history` after the sentences `heard` (trimmed; '' for none). */
export function unheardText(history: ChatMessage[], heard: string[]): string {
  const { answer, cursor } = heardOfAnswer(history, heard);
  return answer.slice(cursor).trim();
}

/**
 * Where `sentence` ends in `text` at or after `from`, whitespace aside: the text sent joins two
 * rounds with a space their history messages do not hold ("Let me check" + "It is sunny").
 */
function findLoosely(text: string, sentence: string, from: number): number | undefined {
  const words = sentence.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return from;
  const pattern = new RegExp(
    words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('\\s*'),
    'g',
  );
  pattern.lastIndex = from;
  const match = pattern.exec(text);
  return match ? match.index + match[0].length : undefined;
}
