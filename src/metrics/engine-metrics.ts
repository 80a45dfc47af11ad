import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Seconds: what a voice user waits for lies between 50 ms and a few seconds. */
const LATENCY_BUCKETS = [0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10, 30];
/** Tools not in the active set (a name the model made up) share one label value. */
const UNKNOWN_TOOL = '(unknown)';

const seconds = (since: number) => (performance.now() - since) / 1000;

export interface EngineMetricsOptions {
  /** Open WebSocket sessions, read at each scrape. */
  sessions: () => number;
  /** Node.js process metrics (CPU, memory, event loop, GC); off in unit tests. */
  processMetrics?: boolean;
}

/**
 * The engine's Prometheus metrics, in their own registry (several engines may share a process in
 * tests). Pure: no Nest import. The turn loop reports through `turn()` and `llmRequest()`.
 */
export class EngineMetrics {
  readonly registry = new Registry();
  private readonly sessionsTotal;
  private readonly turns;
  private readonly turnSeconds;
  private readonly firstTextSeconds;
  private readonly llmRequests;
  private readonly llmFirstEventSeconds;
  private readonly toolCalls;
  private readonly toolSeconds;
  private readonly errors;
  private readonly tokens;
  private readonly fallbacks;

  constructor(options: EngineMetricsOptions) {
    const registers = [this.registry];
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry });
    new Gauge({
      name: 'agent_engine_ws_sessions',
      help: 'WebSocket sessions open now',
      registers,
      collect() {
        this.set(options.sessions());
      },
    });
    this.sessionsTotal = new Counter({
      name: 'agent_engine_sessions_total',
      help: 'WebSocket sessions started; resumed="true" for those that resumed an earlier one',
      labelNames: ['resumed'] as const,
      registers,
    });
    this.turns = new Counter({
      name: 'agent_engine_turns_total',
      help: 'Turns by how they ended: completed, interrupted (barge-in, disconnect) or failed (an error event)',
      labelNames: ['outcome'] as const,
      registers,
    });
    this.turnSeconds = new Histogram({
      name: 'agent_engine_turn_duration_seconds',
      help: 'From the user message to assistant_end, tool rounds included',
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.firstTextSeconds = new Histogram({
      name: 'agent_engine_turn_first_text_seconds',
      help: 'From the user message to the first assistant_delta: how long the user waits for the answer to begin',
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.llmRequests = new Counter({
      name: 'agent_engine_llm_requests_total',
      help: 'Completion requests (retries of one request count once), by kind (stream, reply) and outcome (ok, error, cancelled)',
      labelNames: ['kind', 'outcome'] as const,
      registers,
    });
    this.llmFirstEventSeconds = new Histogram({
      name: 'agent_engine_llm_first_event_seconds',
      help: 'From a completion request to its first text, reasoning or call (retry waits included)',
      labelNames: ['kind'] as const,
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.toolCalls = new Counter({
      name: 'agent_engine_tool_calls_total',
      help: 'Tool calls executed, by tool and result (ok="false": the model got an error text)',
      labelNames: ['tool', 'ok'] as const,
      registers,
    });
    this.toolSeconds = new Histogram({
      name: 'agent_engine_tool_call_duration_seconds',
      help: 'Tool call execution time, by tool',
      labelNames: ['tool'] as const,
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.tokens = new Counter({
      name: 'agent_engine_llm_tokens_total',
      help: 'Tokens of completion requests, by type (prompt, completion), when the LLM server reports usage',
      labelNames: ['type'] as const,
      registers,
    });
    this.fallbacks = new Counter({
      name: 'agent_engine_llm_fallbacks_total',
      help: 'Completion requests the LLM server failed before answering and LLM_FALLBACK_BASE_URL answered instead',
      registers,
    });
    this.errors = new Counter({
      name: 'agent_engine_errors_total',
      help: 'error events sent to clients, by code (README, "WebSocket protocol")',
      labelNames: ['code'] as const,
      registers,
    });
  }

  llmFallback(): void {
    this.fallbacks.inc();
  }

  sessionStarted(resumed: boolean): void {
    this.sessionsTotal.inc({ resumed: String(resumed) });
  }

  error(code: string): void {
    this.errors.inc({ code });
  }

  /** Starts timing a turn; `isTool` keeps made-up tool names out of the label values. */
  turn(isTool: (name: string) => boolean): TurnMeter {
    return new TurnMeter(
      (s) => this.firstTextSeconds.observe(s),
      (tool, ok, ms) => {
        const label = isTool(tool) ? tool : UNKNOWN_TOOL;
        this.toolCalls.inc({ tool: label, ok: String(ok) });
        this.toolSeconds.observe({ tool: label }, ms / 1000);
      },
      (outcome, s, usage) => {
        this.turns.inc({ outcome });
        this.turnSeconds.observe(s);
        if (!usage) return;
        this.tokens.inc({ type: 'prompt' }, usage.prompt_tokens);
        this.tokens.inc({ type: 'completion' }, usage.completion_tokens);
      },
    );
  }

  /** Starts timing one completion request. */
  llmRequest(kind: 'stream' | 'reply'): LlmMeter {
    return new LlmMeter(
      (s) => this.llmFirstEventSeconds.observe({ kind }, s),
      (outcome) => this.llmRequests.inc({ kind, outcome }),
    );
  }
}

/** One turn's measurements; `see` is called with every event the turn sends. */
export class TurnMeter {
  private readonly started = performance.now();
  private texted = false;

  constructor(
    private readonly onFirstText: (seconds: number) => void,
    private readonly onTool: (tool: string, ok: boolean, ms: number) => void,
    private readonly onEnd: (
      outcome: 'completed' | 'interrupted' | 'failed',
      s: number,
      usage?: { prompt_tokens: number; completion_tokens: number },
    ) => void,
  ) {}

  see(event: { type: string; name?: string; ok?: boolean; ms?: number }): void {
    if (event.type === 'assistant_delta') {
      if (this.texted) return;
      this.texted = true;
      this.onFirstText(seconds(this.started));
    } else if (event.type === 'tool_result') {
      this.onTool(event.name ?? '', event.ok === true, event.ms ?? 0);
    }
  }

  end(
    outcome: 'completed' | 'interrupted' | 'failed',
    usage?: { prompt_tokens: number; completion_tokens: number },
  ): void {
    this.onEnd(outcome, seconds(this.started), usage);
  }
}

/** One completion request's measurements. */
export class LlmMeter {
  private readonly started = performance.now();
  private answered = false;

  constructor(
    private readonly onFirstEvent: (seconds: number) => void,
    private readonly onEnd: (outcome: 'ok' | 'error' | 'cancelled') => void,
  ) {}

  /** Called with each event of the request (only the first is timed). */
  see(): void {
    if (this.answered) return;
    this.answered = true;
    this.onFirstEvent(seconds(this.started));
  }

  end(outcome: 'ok' | 'error' | 'cancelled'): void {
    this.onEnd(outcome);
  }
}
