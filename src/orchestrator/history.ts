import { clockLine, type ClockMode } from '../common/clock.js';
import type { ChatMessage } from '../llm/llm.types.js';
import { defuseSpecialTokens } from '../llm/special-tokens.js';
import { deadlineNotice, type Deadline } from './time-limit.js';

/**
 * Bounds a conversation to `max` messages by dropping whole turns from the start (a turn begins
 * at a user message), so an assistant `tool_calls` message is never parted from its tool
 * messages. The turn in progress is always kept.
 */
export function trimHistory(history: ChatMessage[], max: number): ChatMessage[] {
  let start = 0;
  while (history.length - start > max) {
    const next = history.findIndex((m, i) => i > start && m.role === 'user');
    if (next === -1) break;
    start = next;
  }
  return start === 0 ? history : history.slice(start);
}

/**
 * Drops from the history the reasoning its turn's calls were sent back with (LLM_KEEP_REASONING):
 * chat templates show the model only the reasoning since the last user message, and a session
 * kept, resumed or reported need not carry it. Messages without any stay the same objects.
 */
export function forgetReasoning(history: ChatMessage[]): void {
  history.forEach((message, i) => (history[i] = reasonless(message)));
}

/** The history without its reasoning (see forgetReasoning), the history itself left as it was. */
export const withoutReasoning = (history: readonly ChatMessage[]): ChatMessage[] =>
  history.map(reasonless);

function reasonless(message: ChatMessage): ChatMessage {
  if (message.role !== 'assistant' || message.reasoning_content === undefined) return message;
  const { content, tool_calls } = message;
  return { role: 'assistant', content, ...(tool_calls && { tool_calls }) };
}

/** What the model reads as the result of a call cut off with its turn. */
export const CANCELLED = 'Error: cancelled';

/**
 * The history with every call of its last assistant `tool_calls` message answered: a call still
 * running (the history saved mid-turn) gets `Error: cancelled`, as a cancelled turn gives it, so
 * that a session resumed from it never sends a request the server refuses for a dangling call.
 * The history itself is left as it was.
 */
export function answered(history: ChatMessage[]): ChatMessage[] {
  const at = history.findLastIndex((m) => m.role === 'assistant' && m.tool_calls !== undefined);
  const calls = at === -1 ? undefined : (history[at] as { tool_calls?: readonly { id: string }[] });
  if (!calls?.tool_calls) return history;
  const done = new Set(history.slice(at + 1).map((m) => (m.role === 'tool' ? m.tool_call_id : '')));
  const open = calls.tool_calls.filter((c) => !done.has(c.id));
  if (open.length === 0) return history;
  let end = at + 1;
  while (history[end]?.role === 'tool') end++;
  const missing = open.map((c): ChatMessage => ({
    role: 'tool',
    tool_call_id: c.id,
    content: CANCELLED,
  }));
  return [...history.slice(0, end), ...missing, ...history.slice(end)];
}

/** An assistant message of text alone, no calls. */
const textOnly = (
  m: ChatMessage | undefined,
): m is ChatMessage & { role: 'assistant'; content: string } =>
  m?.role === 'assistant' && !m.tool_calls && typeof m.content === 'string';

/** Two messages that go as one: user after user, or assistant text after assistant text. */
const joined = (before: ChatMessage | undefined, message: ChatMessage) =>
  (message.role === 'user' && before?.role === 'user') || (textOnly(message) && textOnly(before));

/**
 * The messages of a request, with user messages in a row (a turn that got no answer: interrupted
 * before its first word, failed, or answered with nothing) joined into one, and assistant texts
 * in a row (an answer, then what the client had the agent say) too. Chat templates that want
 * roles to alternate (Gemma's, Mistral's, Llama 2's) refuse the request otherwise, and then every
 * later one. The history itself is left as it was.
 */
export function alternating(history: readonly ChatMessage[]): readonly ChatMessage[] {
  if (!history.some((m, i) => joined(history[i - 1], m))) return history;
  const out: ChatMessage[] = [];
  for (const message of history) {
    const last = out.at(-1);
    if (!joined(last, message)) out.push(message);
    else if (message.role === 'user')
      out[out.length - 1] = { role: 'user', content: `${last!.content}\n\n${message.content}` };
    else
      out[out.length - 1] = { role: 'assistant', content: `${last!.content} ${message.content}` };
  }
  return out;
}

/**
 * For a conversation longer than the model's context: drops the older half (at least one whole
 * turn) of the turns before the one in progress. Undefined when there is no older turn to drop.
 */
export function shedOlderTurns(history: ChatMessage[]): ChatMessage[] | undefined {
  const current = history.findLastIndex((m) => m.role === 'user');
  if (current <= 0) return undefined;
  const half = Math.ceil(current / 2);
  const cut = history.findIndex((m, i) => i >= half && m.role === 'user');
  return history.slice(cut);
}

/**
 * The one system message of a request: the engine's prompt, then the session's instructions,
 * then the current moment (`clock`: LLM_CLOCK's line, last so that the rest stays a cached prefix
 * on the LLM server). Several system messages are refused by some chat templates.
 */
export function systemMessage(prompt: string, instructions: string, clock = ''): ChatMessage {
  return {
    role: 'system',
    content: [prompt, instructions, clock].filter((t) => t !== '').join('\n\n'),
  };
}

/** What heads the summary of the messages the history dropped, in the system message. */
const EARLIER = 'Earlier in this conversation (its older messages are no longer shown):';

const systemMessages = new WeakMap<
  object,
  { prompt: string; instructions: string; clock: string; message: ChatMessage }
>();

/**
 * `systemMessage` for a session, told the current moment in its time zone as `clock` asks: the
 * same message while its parts stay the same, so that the LLM client writes its JSON once, not
 * once per request. `defuse`: the summary's control tokens are broken (LLM_DEFUSE_SPECIAL_TOKENS):
 * the model wrote it from users' words and tools' results, and a system message is sent as it is.
 */
export function systemMessageOf(
  session: {
    settings: { instructions: string; timezone: string; language: string };
    /** The assistant a handoff gave the conversation to: its instructions come first. */
    agent?: { instructions: string } | undefined;
    /** What the bounded history dropped, summarised (LLM_HISTORY_SUMMARY): after the instructions. */
    memory?: { summary: string };
    /** Its time limit (SESSION_MAX_SECS): near it, the model is told, after the clock. */
    deadline?: Deadline | undefined;
  },
  prompt: string,
  clock: ClockMode = 'off',
  now = new Date(),
  defuse = false,
): ChatMessage {
  const { timezone, language } = session.settings;
  const summary = session.memory?.summary;
  const said = summary && defuse ? defuseSpecialTokens(summary).text : summary;
  const earlier = said ? `${EARLIER}\n${said}` : '';
  const instructions = [session.agent?.instructions ?? '', session.settings.instructions, earlier]
    .filter((t) => t !== '')
    .join('\n\n');
  const line = [clockLine(clock, timezone, now, language), deadlineNotice(session.deadline, +now)]
    .filter((t) => t !== '')
    .join('\n\n');
  const kept = systemMessages.get(session);
  if (kept?.prompt === prompt && kept.instructions === instructions && kept.clock === line)
    return kept.message;
  const message = systemMessage(prompt, instructions, line);
  systemMessages.set(session, { prompt, instructions, clock: line, message });
  return message;
}
