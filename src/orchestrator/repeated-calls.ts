/**
 * Calls of a turn that acted and succeeded, by tool and arguments (`LLM_TOOL_REPEAT_CALLS`). A
 * model that makes the same call of an HTTP or MCP tool that acts again in a later round of the
 * same turn — it took the result for a failure, or it is caught in a loop — would book the table
 * twice, send the text twice: it reads the first call's result again instead, and the call is not
 * run. Only while no other call that acts has succeeded since: add milk, check out, add bread,
 * check out is two check-outs. Calls that change nothing (`isSafe`) run as often as they are made;
 * so do those of a tool with `"repeatable": true`, code tools (their result depends on the
 * conversation, not only on their arguments), the engine's own tools (a handoff back and forth)
 * and the client's. The same call twice in one message is two calls (two of an item).
 * Pure: no Nest import.
 */
import { callKey } from '../llm/call-tally.js';
import type { ToolCallEvent } from '../llm/llm.types.js';
import { actsOnService, isSafe, type Tool } from '../tools/tool-definition.js';
import { argumentProblem } from '../tools/argument-check.js';

/** What the model reads for a call not run again: the first one's result. */
export function repeatedText(result: string): string {
  return `Not run again: the same call, with the same arguments, was made earlier in this turn and succeeded. Its result:\n${result}`;
}

/** The results of a turn's calls that acted, for calls that repeat them. */
export class TurnResults {
  /** The results of the last round in which a call that acts succeeded, by call. */
  private kept = new Map<string, string>();
  /** This round's, once a call that acts has succeeded in it. */
  private fresh: Map<string, string> | undefined;

  constructor(private readonly reuse: boolean) {}

  /** The result of the same call made earlier in the turn, when it is not to run again. */
  earlier(call: ToolCallEvent, tool: Tool | undefined): string | undefined {
    const key = this.reusable(tool) ? keyOf(call, tool) : undefined;
    return key === undefined ? undefined : this.kept.get(key);
  }

  /** `call` of `tool` ran and succeeded with `text`. */
  succeeded(call: ToolCallEvent, tool: Tool | undefined, text: string): void {
    if (!this.reuse || !tool || isSafe(tool)) return;
    this.fresh ??= new Map();
    const key = this.reusable(tool) ? keyOf(call, tool) : undefined;
    if (key !== undefined && !this.fresh.has(key)) this.fresh.set(key, text);
  }

  /** The round's calls are over: what acted in it is what a later round may repeat. */
  roundEnded(): void {
    if (this.fresh) [this.kept, this.fresh] = [this.fresh, undefined];
  }

  private reusable(tool: Tool | undefined): tool is Tool {
    return this.reuse && actsOnService(tool) && !tool.repeatable;
  }
}

/**
 * What makes two calls of `tool` the same: the tool and its arguments as they are sent (a
 * `"Dinner"` the check makes `"dinner"` is the same value; see argumentProblem, run on a copy);
 * none when they were not JSON.
 */
function keyOf(call: ToolCallEvent, tool: Tool): string | undefined {
  if (!call.argumentsValid) return undefined;
  const sent = structuredClone(call.arguments);
  argumentProblem(tool.parameters, sent);
  return callKey(call.name, sent, '');
}
