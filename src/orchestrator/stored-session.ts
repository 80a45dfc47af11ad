/**
 * What is kept of a session for resuming it, and the check of a record read back: another
 * version of the engine, or damage, may have left one this engine cannot go on from (a history
 * message of another shape would fail every later turn's request). Pure: no Nest import.
 */
import { compiledOnUse } from '../common/compiled-on-use.js';
import type { TokenUsage } from '../llm/usage.js';
import type { ChatMessage } from '../llm/llm.types.js';
import { ajv } from '../tools/definition-schema.js';
import type { Agent } from '../tools/handoff-tool.js';
import { timeZoneNamed } from '../common/clock.js';
import { readVariables } from '../tools/session-variables.js';
import { readClientTools } from './client-tools.js';
import { parseClientMessage } from './protocol/client-messages.js';
import type { SessionSettings } from './protocol/server-events.js';
import { readNamedPhrases } from '../common/named-phrases.js';

export interface StoredSession {
  v: 1;
  id: string;
  /** When the conversation began (see Session.startedAt). */
  started?: number;
  history: ChatMessage[];
  settings: SessionSettings;
  state: Record<string, unknown>;
  usage?: TokenUsage;
  /** A placed call's answer to an answering machine (see Session.machine). */
  machine?: { voicemail: string };
  /** Made for a placed call not yet answered (see Session.placed). */
  placed?: true;
  /** The assistant a handoff gave the conversation to (see Session.agent). */
  agent?: Agent;
  /** What the bounded history dropped, summarised (see Session.memory). */
  summary?: string;
  /** The user's turns the bounded history dropped (see Session.turnsDropped). */
  turnsDropped?: number;
  /** The calls of each tool run in the conversation (see Session.toolCalls). */
  toolCalls?: Record<string, number>;
  /** Its `at_start` tools have been called (see Session.startCalled). */
  startCalled?: boolean;
}

const text = { type: 'string' };
const count = { type: 'integer', minimum: 0 };
const call = {
  type: 'object',
  required: ['id', 'type', 'function'],
  properties: {
    id: { type: 'string', minLength: 1 },
    type: { const: 'function' },
    function: {
      type: 'object',
      required: ['name', 'arguments'],
      properties: { name: text, arguments: text },
    },
  },
};
/** A history message as the engine writes it (ChatMessage), by its role. */
const message = {
  type: 'object',
  required: ['role'],
  properties: { role: { enum: ['system', 'user', 'assistant', 'tool'] } },
  allOf: [
    {
      if: { properties: { role: { enum: ['system', 'user'] } } },
      then: { required: ['content'], properties: { content: text } },
    },
    {
      if: { properties: { role: { const: 'assistant' } } },
      then: {
        required: ['content'],
        properties: {
          content: { type: ['string', 'null'] },
          tool_calls: { type: 'array', items: call },
          reasoning_content: text,
        },
      },
    },
    {
      if: { properties: { role: { const: 'tool' } } },
      then: {
        required: ['tool_call_id', 'content'],
        properties: { tool_call_id: text, content: text },
      },
    },
  ],
};

const STORED_SESSION = {
  type: 'object',
  required: ['v', 'id', 'history', 'settings'],
  properties: {
    v: { const: 1 },
    id: { type: 'string', minLength: 1 },
    started: { type: 'number' },
    history: { type: 'array', items: message },
    settings: { type: 'object' },
    state: { type: 'object' },
    usage: {
      type: 'object',
      required: ['prompt_tokens', 'completion_tokens', 'total_tokens'],
      properties: { prompt_tokens: count, completion_tokens: count, total_tokens: count },
    },
    machine: { type: 'object', required: ['voicemail'], properties: { voicemail: text } },
    placed: { const: true },
    agent: {
      type: 'object',
      required: ['via', 'name', 'instructions'],
      properties: {
        via: text,
        name: text,
        instructions: text,
        tools: { type: 'array', items: text },
        voice: text,
        language: text,
        phrases: { type: 'object' },
      },
    },
    summary: text,
    turnsDropped: count,
    toolCalls: { type: 'object', additionalProperties: count },
    startCalled: { type: 'boolean' },
  },
};

const check = compiledOnUse<StoredSession>(ajv, STORED_SESSION);

/**
 * The record `data` as a session to go on from, or why it is none: not JSON, a field of another
 * shape (`history/2/content`), or settings a client could not set (`session.update`'s own rules).
 */
export function readStored(data: string): { stored: StoredSession } | { why: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return { why: 'not JSON' };
  }
  if (!check(parsed)) {
    const error = check.errors![0]!;
    return {
      why: `${error.instancePath.slice(1) || 'the record'} ${error.message ?? 'is invalid'}`,
    };
  }
  const unpaired = callsUnpaired(parsed.history);
  if (unpaired) return { why: unpaired };
  const settings = parseClientMessage(
    JSON.stringify({ ...parsed.settings, type: 'session.update' }),
  );
  if ('error' in settings) return { why: `its settings: ${settings.error}` };
  const read = settingsRead(parsed.settings as unknown as Record<string, unknown>);
  if (typeof read === 'string') return { why: `its settings: ${read}` };
  const phrases = parsed.agent?.phrases && readNamedPhrases(parsed.agent.phrases);
  if (typeof phrases === 'string') return { why: `its assistant: ${phrases}` };
  const agent = parsed.agent && { ...parsed.agent, ...(phrases && { phrases }) };
  return {
    stored: { ...parsed, settings: read as unknown as SessionSettings, ...(agent && { agent }) },
  };
}

/**
 * Why `history`'s calls and results do not pair as the engine writes them (every call of an
 * assistant message answered by the tool messages right after it, each call id once), or
 * undefined: a request sent with them would be refused.
 */
function callsUnpaired(history: readonly ChatMessage[]): string | undefined {
  const seen = new Set<string>();
  let open = new Set<string>();
  for (const [i, m] of history.entries()) {
    if (m.role === 'tool') {
      if (!open.delete(m.tool_call_id)) return `history/${i} answers no call of the message before`;
      continue;
    }
    if (open.size > 0) return `history/${i} comes before every call before it was answered`;
    open = new Set();
    if (m.role !== 'assistant') continue;
    for (const call of m.tool_calls ?? []) {
      if (seen.has(call.id)) return `history/${i} has a call id used before (${call.id})`;
      seen.add(call.id);
      open.add(call.id);
    }
  }
  return open.size > 0 ? 'the last calls of the history are not answered' : undefined;
}

/**
 * `settings` (their types checked as a session.update's) read as a session.update's are: its own
 * tools checked with their defaults (null: none), its variables and time zone; or why not.
 */
function settingsRead(settings: Record<string, unknown>): Record<string, unknown> | string {
  const read = { ...settings };
  if (settings.client_tools !== undefined) {
    const tools = readClientTools((settings.client_tools as unknown[] | null) ?? [], []);
    if ('error' in tools) return tools.error;
    read.client_tools = tools.tools;
  }
  if (settings.variables !== undefined) {
    const variables = readVariables((settings.variables as Record<string, unknown> | null) ?? {});
    if (typeof variables === 'string') return variables;
    read.variables = variables;
  }
  if (settings.phrases !== undefined && settings.phrases !== null) {
    const phrases = readNamedPhrases(settings.phrases as Record<string, unknown>);
    if (typeof phrases === 'string') return phrases;
    read.phrases = phrases;
  }
  if (settings.tool_mocks === null) delete read.tool_mocks;
  else if (settings.tool_mocks !== undefined)
    // Each result as text, as an update makes it (whether the engine takes mocks is checked later).
    read.tool_mocks = Object.fromEntries(
      Object.entries(settings.tool_mocks as Record<string, unknown>).map(([name, value]) => [
        name,
        typeof value === 'string' ? value : JSON.stringify(value),
      ]),
    );
  if (settings.timezone !== undefined) {
    const zone = timeZoneNamed(settings.timezone as string);
    if (!zone) return `an unknown time zone ${JSON.stringify(settings.timezone)}`;
    read.timezone = zone;
  }
  return read;
}
