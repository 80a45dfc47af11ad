/**
 * `"type": "handoff"`: a tool the engine runs itself, with which the model hands the
 * conversation to another assistant — its own instructions, and only the tools it needs — for
 * the rest of the turn and the turns after, until another handoff. Pure: no Nest import.
 */
import { ownTool } from './definition-fields.js';
import { ToolDefinitionError, where } from './definition-error.js';
import type { Tool, ToolDefinitionInput } from './tool-definition.js';
import { readNamedPhrases, type NamedPhrases } from '../common/named-phrases.js';
import type { ToolInvocation, ToolOutcome } from './tool-executor.js';

/** Who takes the conversation: its name, its instructions, the tools it may use (all: none given). */
export interface Agent {
  /** The handoff tool that gives the conversation to it: its definition now is the assistant's. */
  via: string;
  name: string;
  instructions: string;
  tools?: readonly string[];
  /** The voice it speaks with (TTS_VOICE's kind), instead of the session's. */
  voice?: string;
  /** The language the session goes on in from the handoff (its `language` setting). */
  language?: string;
  /** What it says itself (its wait phrase…) instead of the engine's settings, by name. */
  phrases?: NamedPhrases;
}

export const HANDOFF_DESCRIPTION =
  'Hands the conversation to the assistant for this kind of request. Call it when the user asks for what that assistant does, then go on as it.';

/** What the model reads after calling it; the next request is already the new assistant's. */
export function handoffResult(agent: Agent): string {
  return `You are now the ${agent.name} assistant: follow its instructions in the system message, with the tools you now have, and answer the user's request.`;
}

/**
 * The name of an assistant its handoff tool does not name (`agent`): the tool's, less a `to_`,
 * `handoff_to_` or `transfer_to_` before it, its `_` spaces (`to_front_desk`: "front desk").
 */
export function agentNameOf(tool: string): string {
  const bare = tool.replace(/^(?:(?:handoff|hand_off|transfer)_)?to_(?=.)/i, '');
  return bare.replace(/_+/g, ' ').trim() || tool;
}

/** The tool: the agent it hands over to (named by `agent`, else after the tool). */
export function handoffTool(def: ToolDefinitionInput, index: number, source: string): Tool {
  const name = def.name ?? '';
  const phrases = def.phrases === undefined ? {} : readNamedPhrases(def.phrases);
  if (typeof phrases === 'string')
    throw new ToolDefinitionError(
      `${where(source, index, name)}: field 'phrases' is invalid: ${phrases}`,
    );
  return {
    ...ownTool('handoff', def, HANDOFF_DESCRIPTION),
    handoff: {
      via: name,
      name: def.agent ?? agentNameOf(name),
      instructions: def.instructions ?? '',
      ...(def.tools !== undefined && { tools: def.tools as string[] }),
      ...(def.voice !== undefined && { voice: def.voice }),
      ...(def.language !== undefined && { language: def.language }),
      ...(Object.keys(phrases).length > 0 && { phrases }),
    },
  };
}

/**
 * Each handoff's `tools` name tools of the set, or tools an MCP entry for a server's tools (or an
 * OpenAPI entry for a document's operations) may make (its `prefix` and any name; any name at all
 * for an entry with none, its list unknown until it is read): a name written wrong would leave the
 * assistant without it.
 */
export function checkHandoffs(tools: readonly Tool[], source: string): void {
  const names = new Set(tools.map((t) => t.name));
  const prefixes = tools.flatMap((t) => {
    const group = t.mcpGroup ?? t.openapiGroup;
    return group ? [group.prefix] : [];
  });
  tools.forEach((tool, index) => {
    const unknown = (tool.handoff?.tools ?? []).filter(
      (n) => !names.has(n) && !prefixes.some((p) => n.startsWith(p)),
    );
    if (unknown.length > 0)
      throw new ToolDefinitionError(
        `${where(source, index, tool.name)}: field 'tools' names ${unknown.map((n) => `'${n}'`).join(', ')}, which the set has no tool of: expected names of the set's tools (${[...names].join(', ')})`,
      );
  });
}

/** A call of the tool: the session (if the call has one) goes on with the new assistant. */
export function handOff(call: ToolInvocation, tool: Tool): ToolOutcome {
  const agent = tool.handoff!;
  const handOffTo = call.context?.handOff;
  if (!handOffTo)
    return { ok: false, text: 'Error: there is no conversation to hand over here (no session)' };
  handOffTo(agent);
  return { ok: true, text: handoffResult(agent) };
}
