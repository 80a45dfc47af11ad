import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { privateCaHint } from '../../common/connection-error.js';
import {
  llmConfig,
  toolsConfig,
  type LlmConfig,
  type ToolsConfig,
} from '../../config/app.config.js';
import { LlmClient } from '../../llm/llm.types.js';
import { modelSampler } from './mcp-sampling.js';
import { EngineMetrics } from '../../metrics/engine-metrics.js';
import type { Tool } from '../tool-definition.js';
import { toolErrors, resultText } from '../tool-errors.js';
import type { BreakerRun } from '../tool-breaker.js';
import { ToolGuards } from '../tool-guards.service.js';
import { mistaken, ToolExecutor, type ToolInvocation, type ToolOutcome } from '../tool-executor.js';
import { maskSecrets } from '../tool-secrets.js';
import { userSide } from './mcp-call-user.js';
import { OAuth2Tokens } from '../oauth2.js';
import { Subject, type Subscription } from 'rxjs';
import { SessionEnds } from '../session-ends.js';
import { McpClients, targetKey, type McpLimits, type McpTarget } from './mcp-clients.js';
import { needsListing } from './mcp-definition.js';
import { completeListings, type CompleteOptions } from './mcp-complete.js';
import { serverLabel, targetOf } from './mcp-target.js';
import type { ListRead } from './mcp-list-watch.js';
import { commandLine } from './mcp-command.js';
import { mcpResultText } from './mcp-result.js';
import {
  describeFailure,
  listingFailure,
  neverSent,
  requiresTask,
  serverDown,
} from './mcp-faults.js';

/**
 * Runs MCP tools: each call is a `tools/call` on the tool's server (over HTTP, or the standard
 * input and output of a server the engine runs), in a session kept open for the next calls. What
 * the model reads follows HTTP tools' rules: content as text, secrets masked, `result_max_chars`,
 * and `Error: tool request failed: …` when the server cannot be reached or answers with a
 * protocol error.
 */
@Injectable()
export class McpToolExecutor extends ToolExecutor implements OnModuleDestroy {
  private readonly logger = new Logger(McpToolExecutor.name);
  private readonly clients: McpClients;
  /** A server said its tools changed: the key (`targetKey`) of its URL and headers. */
  readonly toolsChanged$ = new Subject<string>();
  private readonly sessionsEnding: Subscription;

  constructor(
    @Inject(toolsConfig.KEY) private readonly config: ToolsConfig,
    private readonly guards: ToolGuards,
    private readonly tokens: OAuth2Tokens,
    private readonly sessionEnds: SessionEnds,
    llm: LlmClient,
    @Inject(llmConfig.KEY) { model }: LlmConfig,
    metrics: EngineMetrics,
  ) {
    super();
    // A session gone: the connections of its own (`per_session` tools) close.
    this.sessionsEnding = sessionEnds.ended$.subscribe((id) => this.clients.endSession(id));
    // Read once: the secrets a server's log lines are masked with (the environment is fixed).
    const envSecrets = toolSecrets();
    this.clients = new McpClients('audio-agent-engine', config.maxResponseBytes, {
      tokens,
      onToolsChanged: (target) => this.toolsChanged$.next(targetKey(target)),
      onServerLog: (target, line, level = 'log') =>
        this.logger[level](`MCP server ${serverLabel(target)}: ${maskSecrets(line, envSecrets)}`),
      // LLM_MODEL names the model in the answer (when the server is asked its models: "default").
      sample: modelSampler(llm, model || 'default', (outcome, usage) =>
        metrics.mcpSampling(outcome, usage),
      ),
    });
  }

  /** The tool takes what it offers from the list of the server `key` names. */
  listedBy(tool: Tool, key: string): boolean {
    if (tool.kind !== 'mcp' || !needsListing(tool)) return false;
    const target = targetOf(tool);
    return !('error' in target) && targetKey(target) === key;
  }

  /**
   * The servers (by `targetKey`) whose lists `tools` take what they offer from, each with a read
   * of its list now (see McpListWatch). A pending tool does not make its server one: the pending
   * tries list it.
   */
  listings(tools: readonly Tool[]): Map<string, ListRead> {
    const reads = new Map<string, ListRead>();
    for (const tool of tools) {
      if (tool.kind !== 'mcp' || !needsListing(tool) || tool.pending !== undefined) continue;
      const target = targetOf(tool);
      if ('error' in target) continue;
      const timeoutSecs = tool.timeoutSecs ?? this.config.timeoutSecs;
      const read = async () => {
        try {
          return JSON.stringify(await this.clients.list(target, { timeoutMs: timeoutSecs * 1000 }));
        } catch (error) {
          const secrets = this.tokens.secretsOf(tool); // the token it was sent, if any
          const why = listingFailure(error, timeoutSecs, secrets, serverLabel(target));
          throw new Error(why, { cause: error });
        }
      };
      reads.set(targetKey(target), read);
    }
    return reads;
  }

  /** Stops the servers run as commands that none of `tools` runs (they are no longer in use). */
  releaseServers(tools: readonly Tool[]): void {
    const keep = new Set<string>();
    for (const tool of tools) {
      const target = tool.stdio ? targetOf(tool) : undefined;
      if (target && !('error' in target)) keep.add(targetKey(target));
    }
    this.clients.release(keep);
  }

  async onModuleDestroy(): Promise<void> {
    this.sessionsEnding.unsubscribe();
    await this.clients.close();
  }

  execute(call: ToolInvocation): Promise<ToolOutcome> {
    const tool = call.snapshot.byName.get(call.name);
    // Never sent: not counted in `max_calls_per_session`.
    const refuse = (text: string) => Promise.resolve({ ok: false, text, notActed: true });
    if (!tool) return Promise.resolve(mistaken('unknown_tool', toolErrors.unknownTool(call.name)));
    if (call.rawArguments !== undefined)
      return Promise.resolve(
        mistaken('invalid_arguments', toolErrors.notAnObject(call.rawArguments)),
      );
    const target = targetOf(tool, call.context?.variables);
    if ('error' in target) return refuse(target.error);
    // The circuit and the concurrency limit belong to the server (as written) and remote tool.
    const server = tool.stdio ? commandLine(tool.stdio) : tool.url;
    return this.guards.run(call, tool, `MCP ${server} ${tool.remoteName}`, () =>
      this.send(call, tool, target),
    );
  }

  /** One `tools/call`: what the model reads, and whether the server was down (for its circuit). */
  private async send(
    call: ToolInvocation,
    tool: Tool,
    target: McpTarget,
  ): Promise<BreakerRun<ToolOutcome>> {
    const timeoutSecs = tool.timeoutSecs ?? this.config.timeoutSecs;
    // A `per_session` tool: the session's own connection; a call made for a session already
    // gone (a background call's, late) one of its own, closed with it.
    const session = tool.mcpPerSession ? call.context?.sessionId : undefined;
    const gone = session !== undefined && !this.sessionEnds.isLive(session);
    const limits = {
      timeoutMs: timeoutSecs * 1000,
      signal: call.signal,
      traceId: call.context?.traceId,
      parent: call.context?.span,
      ...(session !== undefined && { session: gone ? `gone ${call.id}` : session }),
      ...(tool.mcpMaxSessions !== undefined && { maxSessions: tool.mcpMaxSessions }),
      ...userSide(call, this.tokens.secretsOf(tool)),
    };
    try {
      // A server run for one session: what it writes to its standard error says which.
      const own =
        target.stdio && limits.session !== undefined
          ? { ...target, label: `${target.label} (session_id=${limits.session})` }
          : target;
      return await this.request(call, tool, own, limits);
    } finally {
      if (gone) this.clients.endSession(limits.session!);
    }
  }

  /** The `tools/call` of `send`, on the connection `limits` say. */
  private async request(
    call: ToolInvocation,
    tool: Tool,
    target: McpTarget,
    limits: McpLimits,
  ): Promise<BreakerRun<ToolOutcome>> {
    const timeoutSecs = limits.timeoutMs / 1000;
    const remote = tool.remoteName ?? tool.name;
    const run = (asTask: boolean) => this.clients.call(target, remote, call.args, limits, asTask);
    try {
      let result;
      try {
        result = await run(tool.mcpTask === true);
      } catch (error) {
        if (tool.mcpTask === true || !requiresTask(error)) throw error;
        // A tool whose list was not read (its description and parameters given) that its
        // server runs only as a task: the plain call was refused, never run. A task from now on.
        tool.mcpTask = true;
        result = await run(true);
      }
      const { ok, text } = mcpResultText(result);
      const shown = maskSecrets(text, this.tokens.secretsOf(tool));
      const value = {
        ok,
        text: resultText(shown, tool.resultMaxChars ?? this.config.resultMaxChars),
      };
      return { value, backendDown: false };
    } catch (error) {
      if (call.signal.aborted)
        return {
          value: { ok: false, text: toolErrors.requestFailed('cancelled') },
          backendDown: false,
          cancelled: true,
        };
      const detail = maskSecrets(describeFailure(error, timeoutSecs), this.tokens.secretsOf(tool));
      this.logger.warn(`tool '${tool.name}' (MCP) failed: ${detail}${privateCaHint(error)}`);
      const value = {
        ok: false,
        text: toolErrors.requestFailed(detail),
        ...(neverSent(error) && { notActed: true }),
      };
      return { value, backendDown: serverDown(error) };
    }
  }

  /**
   * Fills in what MCP definitions leave out from their servers' lists of tools, over this
   * executor's connections (mcp-complete.ts' completeListings, which says how).
   */
  complete(tools: Tool[], source: string, opts: CompleteOptions = {}): Promise<void> {
    return completeListings(tools, source, opts, {
      list: (target, timeoutMs) => this.clients.list(target, { timeoutMs }),
      timeoutSecs: this.config.timeoutSecs,
      warn: opts.warn ?? ((line) => this.logger.warn(line)),
    });
  }
}

/** The values of every `TOOL_SECRET_*` variable, to mask in what servers log. */
function toolSecrets(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      (e): e is [string, string] => e[0].startsWith('TOOL_SECRET_') && e[1] !== undefined,
    ),
  );
}
