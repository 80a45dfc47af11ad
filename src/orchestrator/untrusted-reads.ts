/**
 * Calls after the model has read what anyone may have written (a tool's `untrusted` results: a
 * web page, a mail, an MCP server's open-world tool): a tool that acts then runs only once the
 * user approves, so that instructions planted in what it read cannot make the agent act unasked.
 * Pure: no Nest import.
 */
import type { ChatMessage } from '../llm/llm.types.js';
import { isSafe, type Tool } from '../tools/tool-definition.js';
import { resultTool } from './background-calls.js';

/**
 * Whether `history` holds a result of a call of an `untrusted` tool of `tools` (a tool message, or
 * a background call's result told in a user message).
 */
export function readUntrusted(
  history: readonly ChatMessage[],
  tools: ReadonlyMap<string, Tool>,
): boolean {
  const untrustedCalls = new Set<string>();
  for (const message of history) {
    if (message.role === 'tool') {
      if (untrustedCalls.has(message.tool_call_id)) return true;
    } else if (message.role === 'user') {
      const told = resultTool(message.content);
      if (told !== undefined && tools.get(told)?.untrusted) return true;
    } else if (message.role === 'assistant') {
      for (const call of message.tool_calls ?? [])
        if (tools.get(call.function.name)?.untrusted) untrustedCalls.add(call.id);
    }
  }
  return false;
}

/** Kinds of tool that act on a service when not safe (a code tool's code may reach anything). */
const ACTING_KINDS = new Set<Tool['kind']>(['http', 'mcp', 'python']);

/**
 * Whether a call of `tool` waits for the user's approval: its `confirm`, or, once the model has
 * read an untrusted result (`afterUntrusted`), its acting on a service: an HTTP, OpenAPI, MCP or
 * code tool that is not safe (a code tool is safe only when it says so). The engine's own tools
 * (ending the call, a handoff, a transfer to a configured number) and the client's are not held.
 */
export function needsApproval(tool: Tool | undefined, afterUntrusted: boolean): boolean {
  if (!tool) return false;
  if (tool.confirm) return true;
  return afterUntrusted && ACTING_KINDS.has(tool.kind) && !isSafe(tool);
}
