import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import { SessionMetrics } from './session-metrics.js';
import { SpeechMetrics } from './speech-metrics.js';
import { TelephonyMetrics } from './telephony-metrics.js';
import { ToolSetMetrics } from './tool-set-metrics.js';
import { ConversationMetrics } from './conversation-metrics.js';
import type { LlmUsage } from '../llm/llm.types.js';
import { LlmMeter, TurnMeter } from './meters.js';
import type { HedgeWinner } from '../llm/fallback-llm.client.js';

/** Seconds: what a voice user waits for lies between 50 ms and a few seconds. */
const LATENCY_BUCKETS = [0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10, 30];
/** Tools not in the active set (a name the model made up) share one label value. */
const UNKNOWN_TOOL = '(unknown)';
/** The label of every call of a client's own tool (`client_tools`), whatever its name. */
export const CLIENT_TOOL = '(client)';

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
  /** Voice latencies: reaction time, transcription, synthesis. */
  readonly speech = new SpeechMetrics(this.registry);
  /** Phone calls: placed by the agent, handed to a person. */
  readonly telephony = new TelephonyMetrics(this.registry);
  /** The tool set's upkeep: circuits, OAuth 2.0 tokens, reloads and changes of the set. */
  readonly toolSet = new ToolSetMetrics(this.registry);
  /** WebSocket sessions: open, started, ended (and why). */
  readonly sessions: SessionMetrics;
  /** What happens in a conversation besides its turns: approvals, questions, asides, handoffs… */
  readonly conversation = new ConversationMetrics(this.registry);
  private readonly turns = this.counter(
    'agent_engine_turns_total',
    'Turns by how they ended: completed, interrupted (barge-in, disconnect) or failed (an error event)',
    ['outcome'],
  );
  private readonly turnSeconds = this.histogram(
    'agent_engine_turn_duration_seconds',
    'From the user message to assistant_end, tool rounds included',
  );
  private readonly firstTextSeconds = this.histogram(
    'agent_engine_turn_first_text_seconds',
    'From the user message to the first assistant_delta: how long the user waits for the answer to begin',
  );
  private readonly llmRequests = this.counter(
    'agent_engine_llm_requests_total',
    'Completion requests (retries of one request count once), by kind (stream, reply) and outcome (ok, error, cancelled)',
    ['kind', 'outcome'],
  );
  private readonly llmFirstEventSeconds = this.histogram(
    'agent_engine_llm_first_event_seconds',
    'From a completion request to its first text, reasoning or call (retry waits included)',
    ['kind'],
  );
  private readonly toolCalls = this.counter(
    'agent_engine_tool_calls_total',
    'Tool calls executed, by tool and result (ok="false": the model got an error text)',
    ['tool', 'ok'],
  );
  private readonly toolModelErrors = this.counter(
    'agent_engine_tool_model_errors_total',
    'Calls the model got wrong, not run (also in tool_calls_total), by tool and kind: unknown_tool, invalid_arguments, cut_off',
    ['tool', 'kind'],
  );
  private readonly toolSeconds = this.histogram(
    'agent_engine_tool_call_duration_seconds',
    'Tool call execution time, by tool',
    ['tool'],
  );
  private readonly toolRetries = this.counter(
    'agent_engine_tool_retries_total',
    'Tool requests sent again after a transient failure (LLM_TOOL_RETRIES), by tool',
    ['tool'],
  );
  private readonly toolQueueSeconds = this.histogram(
    'agent_engine_tool_queue_seconds',
    'How long calls of tools with max_concurrency or rate_limit waited for their turn (a slot, a moment within the rate), in their process and across the engine (~0 when one was free), by tool',
    ['tool'],
  );
  private readonly codeToolWaitSeconds = this.histogram(
    'agent_engine_code_tools_wait_seconds',
    'How long code tool calls waited for a free worker (~0 when one was free); waits of seconds ask for more CODE_TOOLS_WORKERS',
  );
  private readonly toolCacheHits = this.counter(
    'agent_engine_tool_cache_hits_total',
    "Tool calls answered from the results of earlier identical requests (a tool's cache_secs), by tool",
    ['tool'],
  );
  private readonly toolRepeats = this.counter(
    'agent_engine_tool_repeats_total',
    'Calls of tools that act not run, the same call (tool and arguments) having succeeded earlier in the turn: the model read its result again (LLM_TOOL_REPEAT_CALLS), by tool',
    ['tool'],
  );
  private readonly nudges = this.counter(
    'agent_engine_tool_nudges_total',
    'Answers with no tool call that ended promising to act ("Let me check that for you.", kind promise), said a thing was done that no call did ("I\'ve booked your table.", kind claim) or said the assistant could not while a tool_search could find tools it was not offered ("I can\'t refund invoices.", kind refusal), asked once more (LLM_TOOL_NUDGE), by kind and by what the model did then: called (made the call), answered (answered without one)',
    ['kind', 'outcome'],
  );
  private readonly sessionReports = this.counter(
    'agent_engine_session_reports_total',
    'End-of-session reports sent to SESSION_WEBHOOK_URL, by outcome: delivered, failed (after its attempts)',
    ['outcome'],
  );
  private readonly tokens = this.counter(
    'agent_engine_llm_tokens_total',
    'Tokens of completion requests, by type (prompt, completion), when the LLM server reports usage',
    ['type'],
  );
  private readonly samplings = this.counter(
    'agent_engine_mcp_samplings_total',
    "MCP servers' requests for a completion of the engine's model (sampling), by outcome: answered, refused (not text, tools, or more at once than the engine runs), failed (the LLM server's error, or the server cancelled its request)",
    ['outcome'],
  );
  private readonly fallbacks = this.counter(
    'agent_engine_llm_fallbacks_total',
    'Completion requests the LLM server failed before answering and LLM_FALLBACK_BASE_URL answered instead',
  );
  private readonly hedges = this.counter(
    'agent_engine_llm_hedges_total',
    'Completion requests the LLM server had not begun to answer within LLM_FALLBACK_AFTER_MS, sent to LLM_FALLBACK_BASE_URL as well, by which answered first: primary, fallback (the other cancelled), neither (both failed)',
    ['answered'],
  );
  private readonly brokenTokens = this.counter(
    'agent_engine_control_tokens_broken_total',
    "Messages and tools' definitions sent to the LLM server with chat-template control tokens broken (LLM_DEFUSE_SPECIAL_TOKENS), by source: user, tool_result, assistant (the model's own earlier message), tool_definition. Above zero, someone or something wrote them: a caller, a page or backend a tool read, an MCP server",
    ['source'],
  );
  private readonly errors = this.counter(
    'agent_engine_errors_total',
    'error events sent to clients, by code (README, "WebSocket protocol")',
    ['code'],
  );

  constructor(options: EngineMetricsOptions) {
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry });
    this.sessions = new SessionMetrics(this.registry, options.sessions);
  }

  private counter<L extends string = never>(name: string, help: string, labelNames: L[] = []) {
    return new Counter<L>({ name, help, labelNames, registers: [this.registry] });
  }

  /** Latencies, in LATENCY_BUCKETS. */
  private histogram<L extends string = never>(name: string, help: string, labelNames: L[] = []) {
    return new Histogram<L>({
      name,
      help,
      labelNames,
      buckets: LATENCY_BUCKETS,
      registers: [this.registry],
    });
  }

  llmFallback(): void {
    this.fallbacks.inc();
  }

  /** A request sent to both LLM servers was answered by `answered` first. */
  llmHedged(answered: HedgeWinner): void {
    this.hedges.inc({ answered });
  }

  /** An MCP server's sampling request ended; its tokens count with the turns'. */
  mcpSampling(outcome: 'answered' | 'refused' | 'failed', usage?: LlmUsage): void {
    this.samplings.inc({ outcome });
    if (usage?.prompt_tokens) this.tokens.inc({ type: 'prompt' }, usage.prompt_tokens);
    if (usage?.completion_tokens) this.tokens.inc({ type: 'completion' }, usage.completion_tokens);
  }

  /** A message or tool's definition had control tokens broken before it was sent. */
  controlTokensBroken(source: string): void {
    this.brokenTokens.inc({ source });
  }

  error(code: string): void {
    this.errors.inc({ code });
  }

  /**
   * Starts timing a turn; `labelOf` gives a tool call's label, undefined for a name the model made
   * up (labelled `(unknown)`), so that label values stay few.
   */
  turn(labelOf: (name: string) => string | undefined): TurnMeter {
    return new TurnMeter(
      (s) => this.firstTextSeconds.observe(s),
      (tool, ok, ms, repeated, modelError) => {
        const label = labelOf(tool) ?? UNKNOWN_TOOL;
        if (repeated) return this.toolRepeats.inc({ tool: label });
        if (modelError) this.toolModelErrors.inc({ tool: label, kind: modelError });
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

  /** A tool request is sent again after a transient failure. */
  toolRetry(tool: string): void {
    this.toolRetries.inc({ tool });
  }

  /** A call of a tool with `max_concurrency` or `rate_limit` got its turn, or gave up waiting, after `seconds`. */
  toolQueued(tool: string, seconds: number): void {
    this.toolQueueSeconds.observe({ tool }, seconds);
  }

  /** A code tool call got a worker after waiting `seconds` for one. */
  codeToolWaited(seconds: number): void {
    this.codeToolWaitSeconds.observe(seconds);
  }

  /** An answer that promised (or claimed) to act with no call was asked once more: `outcome`. */
  nudged(kind: 'promise' | 'claim' | 'refusal', outcome: 'called' | 'answered'): void {
    this.nudges.inc({ kind, outcome });
  }

  /** A tool call is answered from the cache (`cache_secs`). */
  toolCacheHit(tool: string): void {
    this.toolCacheHits.inc({ tool });
  }

  /** An end-of-session report was delivered, or given up on. */
  sessionReport(outcome: 'delivered' | 'failed'): void {
    this.sessionReports.inc({ outcome });
  }

  /** Starts timing one completion request. */
  llmRequest(kind: 'stream' | 'reply'): LlmMeter {
    return new LlmMeter(
      (s) => this.llmFirstEventSeconds.observe({ kind }, s),
      (outcome) => this.llmRequests.inc({ kind, outcome }),
    );
  }
}
