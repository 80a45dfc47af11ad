/**
 * The conversation as its user saw it (`history`, asked by a client that resumed a session: a
 * chat page reloaded shows the conversation again): what the user typed or said, and the agent's
 * answers as their `assistant_end` gave them. Left out: what the model alone reads (tool calls and
 * results, notes, background results told). Pure: no Nest import.
 */
import type { ChatMessage } from '../llm/llm.types.js';
import { saidByUser } from './notes.js';
import { NO_SPACE_AFTER } from './turn-context.js';

export interface SeenMessage {
  role: 'user' | 'assistant';
  text: string;
}

export function seenHistory(history: readonly ChatMessage[]): SeenMessage[] {
  const seen: SeenMessage[] = [];
  // After a round's calls, the next round's text goes on the same answer.
  let afterCalls = false;
  for (const message of history) {
    if (message.role === 'tool') continue;
    if (message.role === 'user') {
      afterCalls = false;
      if (saidByUser(message)) seen.push({ role: 'user', text: message.content });
      continue;
    }
    if (message.role !== 'assistant') continue;
    const text = message.content?.trim() ? message.content : '';
    const last = seen.at(-1);
    if (text && afterCalls && last?.role === 'assistant')
      last.text += NO_SPACE_AFTER.test(last.text.at(-1) ?? ' ') ? text : ` ${text}`;
    else if (text) seen.push({ role: 'assistant', text });
    afterCalls = (message.tool_calls?.length ?? 0) > 0;
  }
  return seen;
}
