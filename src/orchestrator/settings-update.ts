import { readClientTools } from './client-tools.js';
import type { SessionUpdateMessage } from './protocol/client-messages.js';
import type { ServerEvent, SessionSettings } from './protocol/server-events.js';
import { heardFormat } from '../speech/audio-formats.js';
import { readVariables } from '../tools/session-variables.js';
import { timeZoneNamed } from '../common/clock.js';
import { TIMEZONE_MESSAGE } from './protocol/session-update-message.js';
import type { Agent } from '../tools/handoff-tool.js';
import type { Session } from './session.js';
import { readNamedPhrases } from '../common/named-phrases.js';

/** What a `session.update` is checked against beyond its DTO's rules. */
export interface SettingsLimits {
  /** SESSION_INSTRUCTIONS_MAX_CHARS: the longest `instructions` accepted; 0 refuses them. */
  instructionsMaxChars: number;
  /** Names of the engine's active tools (what `tools` may name, what `client_tools` may not). */
  toolNames: () => string[];
  /** LLM_TOOLS_ENABLED=false: no tool is called, the client's neither. */
  toolsOff: boolean;
  /** SESSION_TOOL_MOCKS: a session may give its tools' results (`tool_mocks`); absent: false. */
  toolMocks?: boolean;
  /** LLM_MODELS: the models a session may choose. */
  models: readonly string[];
  /** SESSION_MAX_SECS: the longest `max_secs` accepted; 0 for no limit. */
  maxSecs: number;
  /** The assistants of the active tools' `handoff` tools (what `agent` may name). */
  agents: () => readonly Agent[];
  /**
   * Those of them this client may choose, by name (SESSION_AGENTS): null for any, [] for none;
   * absent (the engine's own connections, a placed call's session): any.
   */
  clientAgents?: readonly string[] | null;
}

const MAX_MOCKS = 200;
const MAX_MOCK_CHARS = 100_000;

/**
 * A session's `tool_mocks` (tool name → the result the model reads: a string as it is, other JSON
 * as its text), or why they cannot be taken; none given: undefined (none kept).
 */
function readToolMocks(
  given: Record<string, unknown>,
  limits: SettingsLimits,
): Record<string, string> | undefined | string {
  const entries = Object.entries(given).filter(([name]) => name !== '__proto__');
  if (entries.length === 0) return undefined;
  if (!limits.toolMocks)
    return 'this engine takes no "tool_mocks" (SESSION_TOOL_MOCKS=false): they are for engines under test';
  if (entries.length > MAX_MOCKS) return `"tool_mocks" gives more than ${MAX_MOCKS} tools' results`;
  const known = limits.toolNames();
  const mocks: Record<string, string> = {};
  for (const [name, value] of entries) {
    if (!known.includes(name))
      return `unknown tool ${JSON.stringify(name)} in "tool_mocks": the active tools are ${known.join(', ') || 'none'}`;
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    if (text.length > MAX_MOCK_CHARS)
      return `"tool_mocks"'s result for ${name} is longer than ${MAX_MOCK_CHARS} characters`;
    mocks[name] = text;
  }
  return mocks;
}

/** The assistant `name` stands for: a handoff tool's `agent`, or the tool's name. */
function agentNamed(name: string, agents: readonly Agent[]): Agent | undefined {
  return agents.find((a) => a.name === name) ?? agents.find((a) => a.via === name);
}

/**
 * The settings a `session.update` changes (the fields it gives, `client_tools` with their
 * defaults), and the assistant it gives the session to (`agent`: null for the engine's own), or
 * why it cannot be taken (then nothing is changed).
 */
export function settingsChanges(
  message: SessionUpdateMessage,
  limits: SettingsLimits,
): { changes: Partial<SessionSettings>; agent?: Agent | null } | { error: string } {
  const { instructions, tools, client_tools: clientTools } = message;
  const max = limits.instructionsMaxChars;
  if (instructions !== undefined && instructions.length > max)
    return {
      error:
        max === 0
          ? 'this engine takes no session instructions (SESSION_INSTRUCTIONS_MAX_CHARS=0)'
          : `"instructions" is longer than SESSION_INSTRUCTIONS_MAX_CHARS (${max})`,
    };
  const { model } = message;
  if (typeof model === 'string' && !limits.models.includes(model))
    return {
      error:
        limits.models.length === 0
          ? 'this engine lets no session choose its model (LLM_MODELS is empty)'
          : `unknown model ${JSON.stringify(model)} in "model": the models offered are ${limits.models.join(', ')}`,
    };
  const { max_secs: secs } = message;
  if (typeof secs === 'number' && limits.maxSecs > 0 && secs > limits.maxSecs)
    return {
      error: `"max_secs" is over SESSION_MAX_SECS (${limits.maxSecs}): a session may shorten its time, not lengthen it`,
    };
  const known = tools || clientTools ? limits.toolNames() : [];
  const unknown = tools?.find((name) => !known.includes(name));
  if (unknown !== undefined)
    return {
      error: `unknown tool ${JSON.stringify(unknown)} in "tools": the active tools are ${known.join(', ') || 'none'}`,
    };
  const named = message.agent;
  const allowed = limits.clientAgents ?? null;
  if (typeof named === 'string' && allowed?.length === 0)
    return { error: 'this engine lets no client choose its assistant (SESSION_AGENTS=none)' };
  const agents =
    typeof named === 'string'
      ? limits
          .agents()
          .filter((a) => allowed === null || allowed.includes(a.name) || allowed.includes(a.via))
      : [];
  const agent = typeof named === 'string' ? agentNamed(named, agents) : named;
  if (agent === undefined && typeof named === 'string')
    return {
      error: `unknown assistant ${JSON.stringify(named)} in "agent": the assistants are ${agents.map((a) => a.name).join(', ') || 'none (no handoff tool is active)'}`,
    };
  const changes = Object.fromEntries(
    Object.entries(message).filter(
      ([key, value]) => key !== 'type' && key !== 'agent' && value !== undefined,
    ),
  ) as Partial<SessionSettings>;
  if (clientTools !== undefined) {
    if (limits.toolsOff && clientTools !== null && clientTools.length > 0)
      return {
        error: 'this engine calls no tools (LLM_TOOLS_ENABLED=false): "client_tools" must be empty',
      };
    const read = readClientTools(clientTools ?? [], known);
    if ('error' in read) return read;
    changes.client_tools = read.tools;
  }
  if (message.timezone !== undefined) {
    const zone = timeZoneNamed(message.timezone);
    if (!zone) return { error: `${TIMEZONE_MESSAGE}, not ${JSON.stringify(message.timezone)}` };
    changes.timezone = zone;
  }
  if (message.variables !== undefined) {
    const read = readVariables(message.variables ?? {});
    if (typeof read === 'string') return { error: read };
    changes.variables = read;
  }
  if (message.phrases !== undefined) {
    const read = readNamedPhrases(message.phrases ?? {});
    if (typeof read === 'string') return { error: read };
    // None given (null, {}): the engine's own again, and none kept.
    changes.phrases = Object.keys(read).length > 0 ? read : undefined;
  }
  // Off is the default, kept as none: a record without it is one an older engine reads.
  if (message.timings !== undefined) changes.timings = message.timings ? true : undefined;
  if (message.tool_mocks !== undefined) {
    const read = readToolMocks(message.tool_mocks ?? {}, limits);
    if (typeof read === 'string') return { error: read };
    changes.tool_mocks = read;
  }
  // An assistant of another language: the session goes on in it, unless the update says which.
  if (agent?.language && message.language === undefined) changes.language = agent.language;
  return { changes, ...(agent !== undefined && { agent }) };
}

/**
 * `session.updated` for `session`: its settings, the audio the client will hear (none without
 * speech), and the assistant that holds it (null: the engine's own).
 */
export function settingsUpdated(
  { settings, agent }: Pick<Session, 'settings' | 'agent'>,
  tts: { provider: string; sampleRate: number },
): ServerEvent {
  return {
    type: 'session.updated',
    settings,
    audio_format:
      tts.provider === 'none' ? null : heardFormat(settings.output_audio_format, tts.sampleRate),
    agent: agent?.name ?? null,
  };
}
