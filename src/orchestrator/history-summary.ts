/**
 * A conversation's memory of what its bounded history dropped (LLM_HISTORY_SUMMARY): the older
 * turns are summarised by the model, and the summary goes on in the system message, so that a
 * long call does not forget the caller's name, their booking's reference or what was agreed.
 * Pure: no Nest import.
 */
import { lastValueFrom, toArray } from 'rxjs';
import type { ChatMessage, LlmClient, LlmRequest, LlmUsage } from '../llm/llm.types.js';
import { addUsage, type TokenUsage } from '../llm/usage.js';
import { trimHistory } from './history.js';

/** The longest summary kept (a model that ignores the length asked for is cut). */
const SUMMARY_MAX_CHARS = 4000;
/** Of a tool's result, the summary request shows this much. */
const RESULT_CHARS = 1000;
/** Messages a failed summary was for kept for the next one at most (the oldest go first). */
export const UNSUMMARISED_MAX = 200;

export const SUMMARY_INSTRUCTIONS = `You keep the memory of a conversation between a user and a voice assistant whose older messages are being dropped. Write a summary the assistant can go on from: who the user is and what they gave (names, numbers, dates, addresses, references), what they asked for, what was done (tools called, what they returned) and agreed, and what is still open. Keep every detail that may be needed later, leave out small talk. Write plain text, no markdown, at most 200 words, in the language of the conversation.`;

/** The messages dropped from a history, and the summary of those dropped before. */
export class ConversationMemory {
  /** The summary of every message dropped so far ('' when none was, or none could be made). */
  summary = '';
  /** Dropped, not summarised yet. */
  private pending: ChatMessage[] = [];
  /** Dropped, whose summary failed: asked again with the next ones dropped. */
  private unsummarised: ChatMessage[] = [];
  private work: Promise<boolean> = Promise.resolve(false);

  /** Messages the history no longer holds, oldest first. */
  dropped(messages: readonly ChatMessage[]): void {
    this.pending.push(...messages);
  }

  /**
   * Summarises what was dropped since the last summary, after the summaries under way:
   * true once the summary has changed. `ask` answers the new summary, or undefined when it could
   * not be made: those messages are then asked again with the next ones dropped (not at once: a
   * server that cannot make one is not asked after every turn), the last UNSUMMARISED_MAX of them.
   */
  summarize(
    ask: (previous: string, messages: ChatMessage[]) => Promise<string | undefined>,
  ): Promise<boolean> {
    this.work = this.work.then(async () => {
      if (this.pending.length === 0) return false;
      const messages = [...this.unsummarised.splice(0), ...this.pending.splice(0)];
      const summary = await ask(this.summary, messages).catch(() => undefined);
      if (summary === undefined) {
        this.unsummarised = messages.slice(-UNSUMMARISED_MAX);
        return false;
      }
      this.summary = summary;
      return true;
    });
    return this.work;
  }
}

/**
 * The history bounded at a turn's end: over `max` messages, whole older turns are dropped
 * until it holds at most half of `max` (so that a summary is asked for once every few turns, not
 * at each), and go to `memory`; without one, as few as keep it within `max`.
 */
export function boundHistory(
  history: ChatMessage[],
  max: number,
  memory: ConversationMemory | undefined,
): ChatMessage[] {
  if (!memory || history.length <= max) return trimHistory(history, max);
  const kept = trimHistory(history, Math.max(2, Math.floor(max / 2)));
  memory.dropped(history.slice(0, history.length - kept.length));
  return kept;
}

/** The dropped messages as the summary request shows them: who said or did what. */
export function transcriptOf(messages: readonly ChatMessage[]): string {
  const names = new Map<string, string>();
  const lines: string[] = [];
  for (const m of messages) {
    if (m.role === 'user') lines.push(`User: ${m.content}`);
    else if (m.role === 'assistant') {
      if (m.content) lines.push(`Assistant: ${m.content}`);
      for (const call of m.tool_calls ?? []) {
        names.set(call.id, call.function.name);
        lines.push(`Assistant called ${call.function.name}(${call.function.arguments})`);
      }
    } else if (m.role === 'tool') {
      const result =
        m.content.length > RESULT_CHARS ? `${m.content.slice(0, RESULT_CHARS)}…` : m.content;
      lines.push(`Result of ${names.get(m.tool_call_id) ?? 'a tool'}: ${result}`);
    }
  }
  return lines.join('\n');
}

/** The request for a summary of `previous` and `messages`, in the session's model. */
export function summaryRequest(
  previous: string,
  messages: readonly ChatMessage[],
  model: string | null,
): LlmRequest {
  const user = `Summary so far:\n${previous || '(none)'}\n\nMessages to add to it:\n${transcriptOf(messages)}`;
  return {
    messages: [
      { role: 'system', content: SUMMARY_INSTRUCTIONS },
      { role: 'user', content: user },
    ],
    tools: [],
    sampling: { maxTokens: 600 },
    ...(model && { model }),
  };
}

/** The model's summary (its text, trimmed and bounded) and its tokens, or why there is none. */
export async function askSummary(
  llm: LlmClient,
  request: LlmRequest,
): Promise<{ summary: string; usage?: LlmUsage } | { failed: string; usage?: LlmUsage }> {
  const events = await lastValueFrom(llm.chatReply(request).pipe(toArray()));
  let text = '';
  let usage: LlmUsage | undefined;
  for (const event of events) {
    if (event.type === 'error') return { failed: event.message };
    if (event.type === 'text') text += event.text;
    if (event.type === 'done') usage = event.usage;
  }
  const summary = text.trim().slice(0, SUMMARY_MAX_CHARS);
  const used = usage && { usage };
  return summary ? { summary, ...used } : { failed: 'the model answered nothing', ...used };
}

/**
 * Summarises what `session`'s history dropped since its last summary, in its model: true once
 * the summary has changed. A summary that cannot be made is logged and counted; its turns are
 * asked again with the next ones the history drops (see ConversationMemory.summarize).
 */
export function rememberDropped(
  llm: LlmClient,
  session: {
    id: string;
    memory: ConversationMemory;
    settings: { model: string | null };
    /** The session's tokens: a summary's are added, as a turn's are. */
    usage: TokenUsage | undefined;
  },
  logger: { log: (line: string) => void; warn: (line: string) => void },
  metrics: { summarized: (outcome: 'made' | 'failed') => void },
): Promise<boolean> {
  return session.memory.summarize(async (previous, messages) => {
    const request = summaryRequest(previous, messages, session.settings.model);
    const asked = await askSummary(llm, request).catch((error: unknown) => ({
      failed: (error as Error).message,
      usage: undefined,
    }));
    if (asked.usage) session.usage = addUsage(session.usage, asked.usage);
    if ('failed' in asked) {
      metrics.summarized('failed');
      logger.warn(
        `the conversation's ${messages.length} older messages could not be summarised, and are kept to be asked again with the next ones dropped: ${asked.failed} (session_id=${session.id})`,
      );
      return undefined;
    }
    metrics.summarized('made');
    logger.log(
      `summarised the conversation's ${messages.length} older messages in ${asked.summary.length} characters (session_id=${session.id})`,
    );
    return asked.summary;
  });
}
