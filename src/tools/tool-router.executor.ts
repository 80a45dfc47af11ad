import { Injectable, Logger } from '@nestjs/common';
import { CodeToolService } from '../code-tools/code-tool.service.js';
import { HttpToolExecutor } from './http-tool.executor.js';
import { McpToolExecutor } from './mcp/mcp-tool.executor.js';
import { argumentProblem } from './argument-check.js';
import { endSession } from './end-session-tool.js';
import { transferCall } from './transfer-call-tool.js';
import { handOff } from './handoff-tool.js';
import { notOffered, runSearch } from './tool-search.js';
import { toolErrors } from './tool-errors.js';
import { ToolGuards } from './tool-guards.service.js';
import { sessionCapRefusal } from './session-cap.js';
import { mistaken, ToolExecutor, type ToolInvocation, type ToolOutcome } from './tool-executor.js';
import { Spans } from '../tracing/spans.js';
import { endToolSpan, toolSpan } from '../tracing/tool-spans.js';
import type { Tool } from './tool-definition.js';

/** Runs a call with the executor of its tool's kind: HTTP, MCP, Python code or the engine's own. */
@Injectable()
export class ToolRouter extends ToolExecutor {
  private readonly logger = new Logger(ToolRouter.name);

  constructor(
    private readonly http: HttpToolExecutor,
    private readonly code: CodeToolService,
    private readonly mcp: McpToolExecutor,
    private readonly spans: Spans,
    private readonly guards: ToolGuards,
  ) {
    super();
  }

  /** An HTTP or MCP tool's call while its circuit is open: not sent (see ToolGuards.unavailable). */
  override unavailable(tool: Tool): ToolOutcome | undefined {
    return tool.kind === 'http' || tool.kind === 'mcp'
      ? this.guards.unavailable(tool.name)
      : undefined;
  }

  /** Runs `call`, in a span of its own when spans are exported (a code tool's calls under it). */
  async execute(call: ToolInvocation): Promise<ToolOutcome> {
    const kind = call.snapshot.byName.get(call.name)?.kind;
    const span = toolSpan(this.spans, call.context?.span, call, kind);
    if (!span) return this.guarded(call);
    let outcome: ToolOutcome | undefined;
    try {
      outcome = await this.guarded({ ...call, context: { ...call.context!, span: span.ref } });
      return outcome;
    } finally {
      endToolSpan(span, outcome);
    }
  }

  /**
   * `route`, where a fault of the engine's own (an executor that throws) is the call's failure,
   * told to the model as any other, not the turn's: the turn goes on, and every call is answered.
   */
  private async guarded(call: ToolInvocation): Promise<ToolOutcome> {
    try {
      return await this.route(call);
    } catch (error) {
      const { sessionId, turnId } = call.context ?? {};
      const tag = sessionId === undefined ? '' : ` (session_id=${sessionId} turn_id=${turnId})`;
      const stack = error instanceof Error ? error.stack : String(error);
      this.logger.error(`tool '${call.name}' failed inside the engine${tag}: ${stack}`);
      // What went wrong is for the log: an error's text may hold what the model must not read.
      return { ok: false, text: toolErrors.requestFailed('the engine could not make the call') };
    }
  }

  private route(call: ToolInvocation): Promise<ToolOutcome> {
    const tool = call.snapshot.byName.get(call.name);
    if (!tool) return Promise.resolve(notOffered(call));
    // Arguments that are not JSON at all are reported by the executor, as they are.
    const problem =
      call.rawArguments === undefined ? argumentProblem(tool.parameters, call.args) : undefined;
    if (problem)
      return Promise.resolve(mistaken('invalid_arguments', toolErrors.requestFailed(problem)));
    // An engine under test: the session gives the result, checked arguments and all.
    const mocks = call.context?.mocks;
    if (mocks && Object.hasOwn(mocks, call.name))
      return Promise.resolve({ ok: true, text: mocks[call.name]!, mocked: true });
    const counted = overSessionCap(tool, call.context?.callsMade);
    if (counted && 'refusal' in counted) return Promise.resolve(counted.refusal);
    // A call the backend did nothing of is not counted after all: one more may run.
    return counted ? this.kind(call, tool).then(counted.unless) : this.kind(call, tool);
  }

  /** Runs `call` of `tool` with its kind's executor. */
  private kind(call: ToolInvocation, tool: Tool): Promise<ToolOutcome> {
    if (tool.kind === 'mcp') return this.mcp.execute(call);
    if (tool.kind === 'end_session') return Promise.resolve(endSession(call));
    if (tool.kind === 'transfer_call') return Promise.resolve(transferCall(call, tool));
    if (tool.kind === 'handoff') return Promise.resolve(handOff(call, tool));
    if (tool.kind === 'tool_search') return Promise.resolve(runSearch(call, tool));
    if (tool.kind !== 'python') return this.http.execute(call);
    // Calls the code makes are `<call id>:<name>`, then `:2`, `:3` for the same tool again: a
    // client's late answer to one can never be taken for the next.
    const made = new Map<string, number>();
    const idOf = (name: string) => {
      const n = (made.get(name) ?? 0) + 1;
      made.set(name, n);
      return n === 1 ? `${call.id}:${name}` : `${call.id}:${name}:${n}`;
    };
    return this.code.run(tool, call, async (name, args) => {
      const target = call.snapshot.byName.get(name);
      // The user approves calls the model makes; one made inside a tool could not be shown first.
      if (target?.confirm)
        return {
          ok: false,
          text: toolErrors.requestFailed(
            `'${name}' needs the user's approval, so it cannot be called from another tool`,
          ),
        };
      // Another code tool runs inline, in the caller's interpreter (its worker is busy waiting).
      if (target?.kind === 'python') return { ok: true, text: '', python: target };
      // One of the session's own tools: the client runs it.
      const id = idOf(name);
      const asked = target ? undefined : call.context?.callClientTool?.(id, name, args);
      if (asked) return asked;
      return this.execute({
        ...call,
        id,
        name,
        args,
        rawArguments: undefined,
      });
    });
  }
}

/**
 * A call past its tool's `max_calls_per_session` in the conversation (`made`, the session's
 * count): its refusal. Otherwise the call is counted (before it runs: calls made at once cannot
 * all slip under the cap), and `unless` takes the count back for an outcome the backend did
 * nothing of (`notActed`). Calls refused for their arguments are not counted; calls made from
 * inside another tool are.
 */
function overSessionCap(
  tool: Tool,
  made: Map<string, number> | undefined,
): { refusal: ToolOutcome } | { unless: (outcome: ToolOutcome) => ToolOutcome } | undefined {
  const max = tool.maxCallsPerSession;
  if (max === undefined || !made) return undefined;
  const refusal = sessionCapRefusal(tool, made);
  if (refusal) return { refusal };
  made.set(tool.name, (made.get(tool.name) ?? 0) + 1);
  return {
    unless: (outcome) => {
      if (outcome.notActed) made.set(tool.name, Math.max(0, (made.get(tool.name) ?? 1) - 1));
      return outcome;
    },
  };
}
