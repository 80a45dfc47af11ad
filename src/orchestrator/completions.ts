/**
 * The completion requests of a turn: each round's request (the tools its scope leaves, the
 * history), streamed; shortened history and asked again when the conversation does not fit the
 * model's context; the seed's fallback (§5) when a stream comes back empty; each request metered
 * and traced, and the text already sent kept in the history when one is cut short. No Nest
 * import: the turn manager gives it what it needs.
 */
import type { LlmConfig, ToolsConfig } from '../config/app.config.js';
import type { LlmClient, LlmEvent, LlmRequest } from '../llm/llm.types.js';
import type { EngineMetrics } from '../metrics/engine-metrics.js';
import type { ToolExecutor } from '../tools/tool-executor.js';
import type { Spans } from '../tracing/spans.js';
import { completionAttributes } from '../tracing/span-attributes.js';
import type { ConversationMemory } from './history-summary.js';
import { endWarning, runRound, TurnCancelled, type RoundResult } from './round.js';
import type { Session } from './session.js';
import type { ToolScope } from './tool-scope.service.js';
import { toolsOf } from './session-tools.js';
import { readUntrusted } from './untrusted-reads.js';
import {
  forwardEvent,
  requestOf,
  roundTextEnded,
  shedForContext,
  type TurnContext,
} from './turn-context.js';
import { completionSpan, endSpan } from './turn-spans.js';

/** What the requests need of the engine. */
export interface CompletionDeps {
  llm: LlmClient;
  scope: ToolScope;
  executor: ToolExecutor;
  llmSettings: LlmConfig;
  toolSettings: ToolsConfig;
  metrics: EngineMetrics;
  spans: Spans;
  logger: { debug: (line: string) => void; warn: (line: string) => void };
  /** Where the turns a shortened history drops go (LLM_HISTORY_SUMMARY), if anywhere. */
  memoryOf: (session: Session) => ConversationMemory | undefined;
}

export class Completions {
  constructor(private readonly deps: CompletionDeps) {}

  /** The next request of the turn, its tools scoped anew. */
  private async request(ctx: TurnContext, toolChoice: 'auto' | 'none'): Promise<LlmRequest> {
    ctx.toolContext.events = ctx.session.history;
    ctx.snapshot = await this.deps.scope.forRequest({
      base: ctx.base,
      context: ctx.toolContext,
      only: toolsOf(ctx.session),
    });
    return requestOf(ctx, toolChoice, this.deps.llmSettings);
  }

  /** One streamed completion, with the seed's fallback when it comes back empty. */
  async next(ctx: TurnContext, toolChoice: 'auto' | 'none'): Promise<RoundResult> {
    let request = await this.request(ctx, toolChoice);
    // What the model reads in this request decides which of its calls wait for the user.
    ctx.readUntrusted = readUntrusted(ctx.session.history, ctx.base.byName);
    const take = toolChoice === 'auto';
    ctx.roundCalls = 0;
    const starter = { executor: this.deps.executor, limits: this.deps.toolSettings };
    const onEvent = (event: LlmEvent) =>
      forwardEvent(ctx, event, take ? starter : undefined, (line) => this.deps.logger.debug(line));
    let round: RoundResult;
    for (;;) {
      const sent = ctx.visible.length;
      try {
        round = await this.track(ctx, 'stream', request, onEvent);
        break;
      } catch (error) {
        const memory = this.deps.memoryOf(ctx.session);
        const shed = () =>
          shedForContext(ctx, error, this.deps.logger, this.deps.metrics.conversation, memory);
        if (ctx.visible.length !== sent || !shed()) throw error;
        request = await this.request(ctx, toolChoice);
      }
    }
    if (round.text.trim() === '' && round.calls.length === 0 && request.tools.length > 0) {
      this.deps.logger.warn(
        `empty streamed round: asking once more without streaming (session_id=${ctx.session.id} turn_id=${ctx.turnId})`,
      );
      round = await this.track(ctx, 'reply', request, onEvent);
    }
    roundTextEnded(ctx);
    if (round.text.trim() === '') round.text = '';
    const warning = endWarning(round);
    if (warning)
      this.deps.logger.warn(`${warning} (session_id=${ctx.session.id} turn_id=${ctx.turnId})`);
    return round;
  }

  /**
   * Runs one completion request's round (streamed, or the fallback's reply); keeps the text already
   * sent in history when it is cut short.
   */
  private async track(
    ctx: TurnContext,
    kind: 'stream' | 'reply',
    request: LlmRequest,
    onEvent: (event: LlmEvent) => void,
  ): Promise<RoundResult> {
    const start = ctx.visible.length;
    const meter = this.deps.metrics.llmRequest(kind);
    const clock = ctx.timings?.request();
    const streamed = kind === 'stream';
    const { model } = this.deps.llmSettings;
    const span = completionSpan(this.deps.spans, ctx.toolContext.span, request, streamed, model);
    const sent = span ? { ...request, span: span.ref } : request;
    const events$ = streamed
      ? this.deps.llm.stream(sent, ctx.signal)
      : this.deps.llm.chatReply(sent, ctx.signal);
    try {
      const round = await runRound(
        events$,
        ctx.signal,
        (event) => {
          meter.see();
          if (clock && event.type !== 'done') clock.seen();
          if (span && event.type === 'done')
            span.set(completionAttributes(event.finishReason, event.usage));
          onEvent(event);
        },
        ctx.keepReasoning,
      );
      meter.end('ok');
      clock?.ended();
      endSpan(span, undefined);
      return round;
    } catch (error) {
      meter.end(error instanceof TurnCancelled ? 'cancelled' : 'error');
      clock?.ended();
      endSpan(span, error);
      const partial = ctx.visible.toString().slice(start);
      if (partial !== '') ctx.session.history.push({ role: 'assistant', content: partial });
      throw error;
    }
  }
}
