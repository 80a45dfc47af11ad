import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Phrases } from '../common/phrases.js';
import { randomUUID } from 'node:crypto';
import { Observable, type Subscriber } from 'rxjs';
import {
  llmConfig,
  sessionsConfig,
  toolsConfig,
  type LlmConfig,
  type SessionsConfig,
  type ToolsConfig,
} from '../config/app.config.js';
import { redactor, type Redact } from '../common/redaction.js';
import { LlmClient } from '../llm/llm.types.js';
import { CLIENT_TOOL, EngineMetrics } from '../metrics/engine-metrics.js';
import { ToolExecutor } from '../tools/tool-executor.js';
import { ToolRegistry } from '../tools/tool-registry.service.js';
import { boundHistory, rememberDropped } from './history-summary.js';
import { addUsage } from '../llm/usage.js';
import type { TurnEvent } from './protocol/server-events.js';
import { RoundFailed, TurnCancelled, turnFailure } from './round.js';
import { keepEnd, type Session } from './session.js';
import { forgetReasoning } from './history.js';
import { StreamedText } from '../llm/streamed-text.js';
import { ToolScope } from './tool-scope.service.js';
import { handingOff, refreshAgent, toolContextOf } from './session-tools.js';
import { callAtStart, callEarly } from './start-calls.js';
import type { Agent } from '../tools/handoff-tool.js';
import { traceIdOf } from '../common/trace-context.js';
import { callOutcomeLine, type TurnContext } from './turn-context.js';
import { runCalls } from './run-calls.js';
import { nudgeAnswered, nudges } from './unkept-promise.js';
import { ProgressRelay } from './progress-relay.js';
import { userAnswers } from './approvals.js';
import { questionAsker } from './questions.js';
import { waitsTold } from './waits-told.js';
import { clientToolCaller, clientToolsOf } from './client-tools.js';
import { Spans } from '../tracing/spans.js';
import { endSpan, turnSpan, type Transcription } from './turn-spans.js';
import { TurnResults } from './repeated-calls.js';
import { Completions } from './completions.js';
import type { TurnTimings } from './turn-timings.js';

/** What an answer asked once more did, for the log. */
const NUDGED = {
  promise: 'promised to act',
  claim: 'said a thing was done',
  refusal: 'said it could not, with tools left to search,',
} as const;

/**
 * The turn loop (seed §1, §5): rounds of completion → tool execution → re-prompt, until a
 * round has no calls or the iteration bound is hit. Events go out as an Observable.
 */
@Injectable()
export class TurnManager {
  private readonly logger = new Logger(TurnManager.name);
  private readonly completions: Completions;
  private readonly redact: Redact;

  constructor(
    private readonly llm: LlmClient,
    private readonly registry: ToolRegistry,
    private readonly executor: ToolExecutor,
    scope: ToolScope,
    @Inject(llmConfig.KEY) private readonly llmSettings: LlmConfig,
    @Inject(toolsConfig.KEY) private readonly toolSettings: ToolsConfig,
    private readonly metrics: EngineMetrics,
    private readonly spans: Spans,
    @Inject(sessionsConfig.KEY) sessions: SessionsConfig,
  ) {
    const redact = redactor(sessions.redaction);
    // Users' words and the model's arguments, in debug lines, as operators may read them.
    this.redact = redact ?? ((text) => text);
    this.completions = new Completions({
      llm,
      scope,
      executor,
      metrics,
      spans,
      llmSettings,
      toolSettings,
      logger: {
        debug: (line) => this.logger.debug(this.redact(line)),
        warn: (line) => this.logger.warn(line),
      },
      memoryOf: (session) => this.memoryOf(session),
    });
  }

  /** LLM_MODELS: the models a session may choose. */
  get models(): readonly string[] {
    return this.llmSettings.models;
  }

  /** Names of the tools the model may be offered now. */
  toolNames(): string[] {
    return this.registry.active().tools.map((t) => t.name);
  }

  /** The assistants of the active `handoff` tools (what `session.update`'s `agent` may name). */
  agents(): Agent[] {
    return this.registry.active().tools.flatMap((t) => (t.handoff ? [t.handoff] : []));
  }

  /** A turn is coming (an utterance is being transcribed): the LLM server's connection readied. */
  warm(): void {
    if (this.llmSettings.enabled) this.llm.warm();
  }

  /** The user has begun to speak: `session`'s safe `at_start` calls begin (LLM_TOOL_EARLY_START). */
  prepare(session: Session): void {
    if (this.toolSettings.earlyStart && this.llmSettings.enabled)
      callEarly(session, () => this.registry.active(), this.executor);
  }

  /** A tool's own `wait_phrase`, by language, if it has one. */
  waitPhrasesOf(name: string): Phrases | undefined {
    return this.registry.active().byName.get(name)?.waitPhrase;
  }

  /**
   * Summarises what the session's history dropped since its last summary (LLM_HISTORY_SUMMARY),
   * in the background of its turns: true once the summary has changed.
   */
  summarize(session: Session): Promise<boolean> {
    if (!this.llmSettings.historySummary) return Promise.resolve(false);
    return rememberDropped(this.llm, session, this.logger, this.metrics.conversation);
  }

  /** Where the turns the history drops go: the session's memory, with LLM_HISTORY_SUMMARY. */
  private memoryOf(session: Session) {
    return this.llmSettings.historySummary ? session.memory : undefined;
  }

  /** Runs one user turn. The observable always ends with `assistant_end`; aborting `signal` interrupts it. */
  /**
   * `heard`: a spoken turn's transcription, the first part of its span; `timings`: told where
   * the turn's time goes, when its session asked.
   */
  run(
    session: Session,
    userText: string,
    signal: AbortSignal,
    heard?: Transcription,
    timings?: TurnTimings,
  ): Observable<TurnEvent> {
    return new Observable<TurnEvent>((subscriber) => {
      void this.execute(session, userText, signal, subscriber, heard, timings).finally(() =>
        subscriber.complete(),
      );
    });
  }

  private async execute(
    session: Session,
    userText: string,
    signal: AbortSignal,
    out: Subscriber<TurnEvent>,
    heard?: Transcription,
    timings?: TurnTimings,
  ): Promise<void> {
    const snapshot = this.registry.active();
    refreshAgent(session, snapshot);
    const clientTools =
      this.toolSettings.explicit === false ? new Map() : clientToolsOf(session, snapshot);
    // Client tools are named by the client: one label for them all keeps the metrics bounded.
    const meter = this.metrics.turn((name) =>
      snapshot.byName.has(name) ? name : clientTools.has(name) ? CLIENT_TOOL : undefined,
    );
    let over: AbortController | undefined;
    let callSignal: AbortSignal | undefined;
    const turnId = randomUUID();
    const traceId = this.llmSettings.traceContext ? traceIdOf(turnId) : undefined;
    const tag = `session_id=${session.id} turn_id=${turnId}`;
    const progress = new ProgressRelay((event) => out.next(event));
    const waits = waitsTold(
      (event) => ctx.emit(event),
      (kind) => this.metrics.conversation.aside(kind),
    );
    const ctx: TurnContext = {
      session,
      turnId,
      base: snapshot,
      snapshot,
      toolContext: toolContextOf(session, turnId, traceId),
      signal,
      emit: (event) => {
        if (event.type === 'tool_result') {
          progress.closed(event.id);
          ctx.tally(event);
        } else {
          if (event.type === 'tool_call') progress.opened(event.id, event.name, event.arguments);
          meter.see(event);
        }
        waits.see(event);
        out.next(event);
      },
      tally: (event) => {
        meter.see(event);
        this.logger.log(`${callOutcomeLine(event)} (${tag} call_id=${event.id})`);
      },
      visible: new StreamedText(),
      pendingWs: '',
      wsMode: 'held',
      afterCallWs: '',
      clientTools,
      ...(this.spans.enabled && { spans: this.spans }),
      started: new Map(),
      roundCalls: 0,
      results: new TurnResults(this.toolSettings.repeatCalls === 'reuse'),
      finishCutCalls: this.toolSettings.interruptedCalls === 'finish',
      keepReasoning: this.llmSettings.keepReasoning === 'turn',
      readUntrusted: false,
      ...(timings && { timings }),
      // Made when a call first needs it, `over` aborted at the turn's end for calls still running:
      // most turns call no tool, and AbortSignal.any and an abort (its DOMException) cost.
      get callSignal() {
        return (callSignal ??= AbortSignal.any([signal, (over = new AbortController()).signal]));
      },
      ...userAnswers(
        session,
        signal,
        this.toolSettings.confirmTimeoutSecs * 1000,
        this.metrics.conversation,
      ),
    };
    ctx.toolContext.callClientTool = clientToolCaller(ctx, this.toolSettings);
    ctx.toolContext.progress = (id, update) => progress.report(id, update);
    ctx.toolContext.ask = questionAsker(ctx, (id) => progress.running(id));
    const counted = (agent: string) => this.metrics.conversation.handedOff(agent);
    ctx.toolContext.handOff = handingOff(session, (event) => ctx.emit(event), counted);
    session.waits = waits;
    const span = turnSpan(this.spans, session, turnId, heard);
    // The turn's speech, which goes on after its end, puts its spans under it too.
    session.turnSpan = ctx.toolContext.span = span?.ref;
    this.logger.log(
      `turn started (${tag}, ${snapshot.tools.length} tool(s) from ${snapshot.source})`,
    );
    this.logger.debug(`user text (${tag}): ${JSON.stringify(this.redact(userText))}`);
    session.history.push({ role: 'user', content: userText });
    let outcome: 'completed' | 'interrupted' | 'failed' = 'completed';
    let failure: unknown;
    try {
      if (!this.llmSettings.enabled)
        throw new RoundFailed('the LLM is disabled (LLM_ENABLED=false)', 'llm_disabled');
      await callAtStart(this.executor, ctx);
      await this.loop(ctx);
    } catch (error) {
      outcome = error instanceof TurnCancelled ? 'interrupted' : 'failed';
      failure = error;
      const { level, line, event } = turnFailure(error, tag);
      this.logger[level](line);
      if (event) out.next(event);
    } finally {
      progress.close();
      over?.abort();
      if (session.waits === waits) session.waits = undefined;
      forgetReasoning(session.history);
      const { maxHistoryMessages: max } = this.llmSettings;
      keepEnd(session, boundHistory(session.history, max, this.memoryOf(session)));
    }
    out.next({
      type: 'assistant_end',
      text: ctx.visible.toString(),
      ...(outcome === 'interrupted' && { interrupted: true }),
      ...(ctx.usage && { usage: ctx.usage }),
    });
    meter.end(outcome, ctx.usage);
    endSpan(span, failure, ctx.usage && { usage: ctx.usage });
    if (ctx.usage) session.usage = addUsage(session.usage, ctx.usage);
  }

  private async loop(ctx: TurnContext): Promise<void> {
    for (let toolRounds = 0; ; toolRounds++) {
      const last = toolRounds >= this.toolSettings.maxIterations;
      const round = await this.completions.next(ctx, last ? 'none' : 'auto');
      if (ctx.nudge?.open) this.metrics.nudged(ctx.nudge.kind, nudgeAnswered(ctx, round));
      const tag = `session_id=${ctx.session.id} turn_id=${ctx.turnId}`;
      if (last || round.calls.length === 0) {
        if (round.text !== '') ctx.session.history.push({ role: 'assistant', content: round.text });
        else if (last && round.calls.length > 0)
          this.logger.warn(
            `no answer after LLM_TOOL_MAX_ITERATIONS=${toolRounds} tool rounds: the model asked for more tools (${tag})`,
          );
        // A round is left for the calls (the one after `last` offers none).
        const again = toolRounds + 1 < this.toolSettings.maxIterations && this.toolSettings.nudge;
        if (!last && again && nudges(ctx, round)) {
          const what = NUDGED[ctx.nudge!.kind];
          this.logger.log(`the answer ${what} but made no call: asked once more (${tag})`);
          continue;
        }
        return;
      }
      const calls = performance.now();
      await runCalls(this.executor, ctx, round);
      ctx.timings?.toolsWaited(calls);
    }
  }
}
