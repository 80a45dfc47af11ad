import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import {
  codeToolsConfig,
  sessionsConfig,
  speechConfig,
  toolsConfig,
  type CodeToolsConfig,
  type SessionsConfig,
  type SpeechConfig,
  type ToolsConfig,
} from '../config/app.config.js';
import type { Tool } from '../tools/tool-definition.js';
import {
  mistaken,
  type ToolCallContext,
  type ToolInvocation,
  type ToolOutcome,
} from '../tools/tool-executor.js';
import { progressUpdate } from '../tools/tool-progress.js';
import { askedFor, userSide, type CodeUser } from './code-user.js';
import { resultText, truncateResult } from '../tools/tool-errors.js';
import { CANCELLED_RESULT, CodeToolPool, type BridgeRequest } from './code-tool-pool.js';
import { EngineMetrics } from '../metrics/engine-metrics.js';
import { toolErrors } from '../tools/tool-errors.js';
import { answerMaxBytes } from './bridge.js';
import { bridgeHttp } from './bridge-http.js';
import {
  applyStateChanges,
  STATE_WITHHELD_CHARS,
  stateTooLarge,
  type State,
} from './state-changes.js';

/** Calls another active tool on behalf of a code tool (`tools.<name>(...)`). */
export type CallTool = (
  name: string,
  args: Record<string, unknown>,
) => Promise<ToolOutcome & { python?: Tool }>;

export interface AnalyzedCode {
  ok: boolean;
  error?: string;
  line?: number;
  name?: string;
  description?: string;
  parameters?: Record<string, unknown>;
}

/** Python code tools (seed 003) on a pool of sandboxed Pyodide workers. */
/** Why the state a worker did not send, being too large (`state_chars`), cannot be kept. */
const withheldState = (result: Record<string, unknown>) =>
  typeof result.state_chars === 'number' ? stateTooLarge(result.state_chars) : undefined;

@Injectable()
export class CodeToolService implements OnModuleDestroy {
  private readonly logger = new Logger(CodeToolService.name);
  readonly pool: CodeToolPool;

  constructor(
    @Inject(codeToolsConfig.KEY) private readonly config: CodeToolsConfig,
    @Inject(toolsConfig.KEY) private readonly tools: ToolsConfig,
    metrics: EngineMetrics,
    // A call no session makes (an admin's try) gets the engine's language and time zone.
    @Inject(speechConfig.KEY) private readonly speech: SpeechConfig,
    @Inject(sessionsConfig.KEY) private readonly sessions: SessionsConfig,
  ) {
    this.pool = new CodeToolPool({
      workers: config.workers,
      memoryMb: config.memoryMb,
      packagesDir: config.packagesDir,
      answerMaxBytes: answerMaxBytes(tools.maxResponseBytes),
      onWaited: (seconds) => metrics.codeToolWaited(seconds),
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.pool.close();
  }

  /** Parses a definition's code (nothing runs): its function, docstring and schema. */
  async analyze(code: string, name: string | undefined): Promise<AnalyzedCode> {
    await this.pool.start();
    return (await this.pool.run({
      kind: 'analyze',
      job: { code, ...(name ? { name } : {}) },
      timeoutMs: 10_000,
    })) as unknown as AnalyzedCode;
  }

  private jobContext(id: string, context: ToolCallContext | undefined): Record<string, unknown> {
    const events = context?.events ?? [];
    const lastUser = [...events].reverse().find((e) => e.role === 'user');
    return {
      function_call_id: id,
      user_content: { role: 'user', parts: lastUser ? [{ text: lastUser.content ?? '' }] : [] },
      state: context?.state.value ?? {},
      events: events.map((e) => ({
        role: e.role,
        author: e.role,
        parts: [{ text: e.content ?? '' }],
      })),
      session_id: context?.sessionId ?? '',
      invocation_id: context?.turnId ?? '',
      // The assistant a handoff gave the session to, else the engine's own.
      agent_name: context?.agent ?? this.config.agentName,
      variables: context?.variables ?? {},
      session: {
        modality: (context?.modality ?? 'text').toUpperCase(),
        channel: context?.channel ?? 'websocket',
        language: context?.language ?? this.speech.language,
        timezone: context?.timezone ?? this.sessions.timeZone,
      },
    };
  }

  /** Runs one call of a code tool; the result is text for the model, never an exception. */
  async run(tool: Tool, call: ToolInvocation, callTool: CallTool): Promise<ToolOutcome> {
    if (call.rawArguments !== undefined)
      return mistaken('invalid_arguments', toolErrors.codeNotAnObject(call.rawArguments));
    const timeoutMs = (tool.timeoutSecs ?? this.tools.timeoutSecs) * 1000;
    const maxChars = tool.resultMaxChars ?? this.tools.resultMaxChars;
    // The state this call starts from (a copy: other calls of the round may change it meanwhile).
    const before = structuredClone(call.context?.state.value ?? {});
    // Whose code is running, by the call id the runtime gives it: the tool itself, or a code tool
    // it calls inline (`tools.<name>`), so each request gets the secrets its own code names.
    const sources = new Map([[call.id, tool.code]]);
    const result = await this.pool.run({
      kind: 'run',
      job: {
        code: tool.code,
        func: tool.name,
        args: call.args,
        context: { ...this.jobContext(call.id, call.context), state: before },
        result_max_chars: maxChars,
        state_max_chars: STATE_WITHHELD_CHARS,
      },
      timeoutMs,
      onBridge: (request, stopped, hold) =>
        this.bridge(
          request,
          AbortSignal.any([call.signal, stopped]),
          callTool,
          sources,
          call.context,
          userSide(call, hold),
        ),
      signal: call.signal,
    });
    const logs = typeof result.logs === 'string' ? result.logs : '';
    if (logs)
      this.logger.log(`code tool ${tool.name} printed (call ${call.id}): ${logs.trimEnd()}`);
    /** The model reads why; the operator is told (a cancelled call is no failure of the tool's). */
    const failed = (error: string) => {
      if (!call.signal.aborted)
        this.logFailure(`code tool ${tool.name} failed (call ${call.id})`, error);
      return { ok: false, text: error, logs };
    };
    if (result.ok !== true)
      return failed(
        typeof result.error === 'string'
          ? truncateResult(result.error, maxChars)
          : 'Error: RuntimeError: the code tool failed',
      );
    // A call cut short by a cancelled turn changes no state: the model is told it was cancelled.
    if (call.signal.aborted) return { ok: false, text: CANCELLED_RESULT.error, logs };
    const withheld = withheldState(result);
    if (call.context && withheld) return failed(`Error: ValueError: ${withheld}`);
    if (call.context && result.state !== undefined) {
      const after = result.state as State;
      const next = applyStateChanges(call.context.state.value, before, after);
      const tooLarge = stateTooLarge(next);
      if (tooLarge) return failed(`Error: ValueError: ${tooLarge}`);
      call.context.state.value = next;
    }
    return {
      ok: true,
      text: resultText(String(result.result), maxChars),
      logs,
    };
  }

  /** `before_model_callback`s: the tools they hide from this request, and the state they leave. */
  async beforeModel(
    callbacks: readonly Tool[],
    toolNames: string[],
    context: ToolCallContext,
  ): Promise<Set<string>> {
    const hidden = new Set<string>();
    for (const callback of callbacks) {
      const result = await this.pool.run({
        kind: 'callback',
        job: {
          code: callback.code,
          func: callback.name,
          tool_names: toolNames,
          context: this.jobContext('', context),
          result_max_chars: this.tools.resultMaxChars,
          state_max_chars: STATE_WITHHELD_CHARS,
        },
        timeoutMs: (callback.timeoutSecs ?? this.tools.timeoutSecs) * 1000,
      });
      if (result.ok !== true) {
        this.logFailure(`${callback.name} failed, no tool hidden by it`, String(result.error));
        continue;
      }
      (result.excluded as string[]).forEach((name) => hidden.add(name));
      if (result.state === undefined && result.state_chars === undefined) continue;
      const state = result.state as State;
      const tooLarge = withheldState(result) ?? stateTooLarge(state);
      if (tooLarge) this.logger.warn(`${callback.name}: ${tooLarge}`);
      else context.state.value = state;
    }
    return hidden;
  }

  /**
   * A call (or callback) that failed, for the operator: its exception's type at warn level (its
   * message may hold what the user said or the arguments: at debug level, with the whole text).
   */
  private logFailure(what: string, error: string): void {
    this.logger.warn(`${what}: ${/^Error: (\w+)/.exec(error)?.[1] ?? 'Error'}`);
    this.logger.debug(`${what}: ${error}`);
  }

  private async bridge(
    request: BridgeRequest,
    signal: AbortSignal,
    callTool: CallTool,
    sources: Map<string, string>,
    trace: Pick<ToolCallContext, 'traceId' | 'span'> | undefined,
    user: CodeUser,
  ): Promise<Record<string, unknown>> {
    if (request.kind === 'progress') {
      // What the code could read is masked already (responses, the engine's own answers).
      const update = progressUpdate(request.payload, {});
      if (update) user.report?.(update);
      return { ok: true };
    }
    if (request.kind === 'confirm' || request.kind === 'ask') {
      const { question, wanted } = request.payload;
      if (!user.ask || typeof question !== 'string') return { answer: null };
      if (request.kind === 'ask') {
        const said = await user.ask(question, askedFor(wanted));
        return { answer: typeof said === 'object' ? said.value : null };
      }
      const said = await user.ask(question);
      return { answer: said === 'yes' || said === 'no' ? said === 'yes' : null };
    }
    if (request.kind === 'http')
      return bridgeHttp(request.payload, { sources, trace, options: this.httpOptions(), signal });
    const { name, args } = request.payload as { name: string; args: Record<string, unknown> };
    const outcome = await callTool(String(name), args ?? {});
    if (outcome.python) {
      const callId = `nested_${name}`;
      sources.set(callId, outcome.python.code);
      return { python: { code: outcome.python.code, func: outcome.python.name, call_id: callId } };
    }
    return { text: outcome.text, ok: outcome.ok };
  }

  private httpOptions() {
    return {
      allowPrivateNetwork: this.config.allowPrivateNetwork,
      timeoutMs: this.tools.timeoutSecs * 1000,
      maxResponseBytes: this.tools.maxResponseBytes,
    };
  }
}
