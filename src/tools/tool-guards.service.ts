import { Inject, Injectable, Logger } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { toolsConfig, type ToolsConfig } from '../config/app.config.js';
import { EngineMetrics } from '../metrics/engine-metrics.js';
import type { Tool } from './tool-definition.js';
import { ToolCircuitNews } from './circuit-news.js';
import { ToolBreakers, type BreakerRun } from './tool-breaker.js';
import { toolErrors } from './tool-errors.js';
import type { ToolInvocation, ToolOutcome } from './tool-executor.js';
import { SessionStore } from '../sessions/session-store.js';
import { ClusterLink } from '../cluster/cluster-link.js';
import { ClusterSlots, SharedSlots, type EngineSlots } from './shared-slots.js';
import { ToolSlots, type NotRun } from './tool-slots.js';
import { EngineRates } from './shared-rates.js';

/**
 * What stands between a call and its tool's service, for HTTP and MCP tools alike: its turn
 * among at most `max_concurrency` calls, then the tool's circuit (not sent while its service is
 * down, LLM_TOOL_BREAKER_FAILURES), then its moment within the tool's `rate_limit`. Shared by
 * every session of the process; the circuits' openings and closings told to the other processes
 * and replicas, and theirs taken up; `max_concurrency` and `rate_limit` held across the engine's
 * processes, and with a Redis session store across the replicas too.
 */
@Injectable()
export class ToolGuards {
  private readonly logger = new Logger(ToolGuards.name);
  private readonly breakers: ToolBreakers;
  private readonly slots: ToolSlots;
  /** `max_concurrency` across processes and replicas (Redis), or the engine's processes (cluster). */
  private readonly shared: EngineSlots;
  /** `rate_limit` across processes and replicas (Redis), or the engine's processes (cluster). */
  private readonly rates: EngineRates;
  private lastUnavailable = 0;

  constructor(
    @Inject(toolsConfig.KEY) private readonly config: ToolsConfig,
    private readonly metrics: EngineMetrics,
    news: ToolCircuitNews,
    store: SessionStore,
    cluster: ClusterLink,
  ) {
    // The wait is measured here, whole: its turn in the process and across the engine.
    this.slots = new ToolSlots();
    // One line per 10 s while Redis is away.
    const unavailable = (error: Error) => {
      if (Date.now() - this.lastUnavailable < 10_000) return;
      this.lastUnavailable = Date.now();
      this.logger.warn(
        `Redis unavailable: max_concurrency and rate_limit hold across this engine's processes only (${error.message})`,
      );
    };
    const processes = new ClusterSlots(cluster);
    this.shared = !store.scripts
      ? processes
      : new SharedSlots(store.scripts, {
          broadcast: store.broadcast,
          unavailable,
          fallback: processes,
        });
    this.rates = new EngineRates(cluster, store.scripts, { unavailable });
    const cooldown = `${config.breakerCooldownSecs}s, then one tries it again`;
    this.breakers = new ToolBreakers(config.breakerFailures, config.breakerCooldownSecs * 1000, {
      opened: (tool, target, failures, byNews) => {
        this.logger.warn(
          byNews
            ? `tool '${tool}': another engine process found the service down; its calls are not sent here either for ${cooldown}`
            : `tool '${tool}': its last ${failures} calls found the service down; its calls are not sent for ${cooldown}`,
        );
        metrics.toolSet.circuit(tool, true);
        if (!byNews) news.tell({ tool, target, open: true });
      },
      closed: (tool, target, by) => {
        this.logger.log(
          by === 'news'
            ? `tool '${tool}': another engine process found the service back; calls are sent again`
            : `tool '${tool}': calls are sent again`,
        );
        metrics.toolSet.circuit(tool, false);
        if (by === 'call') news.tell({ tool, target, open: false });
      },
    });
    news.onNews((told) => this.breakers.told(told));
  }

  /**
   * What a call of tool `name` would be answered now without being sent, its service found down
   * (its circuit open for a while yet); undefined when it would be sent.
   */
  unavailable(name: string): ToolOutcome | undefined {
    const left = this.breakers.openFor(name);
    if (left === undefined) return undefined;
    return fail(toolErrors.unavailable(this.config.breakerFailures, left));
  }

  /** Tools whose service is down: their calls are not sent now. */
  unavailableTools(): string[] {
    return this.breakers.openTools();
  }

  /**
   * Runs `send` for `call` of `tool`, whose requests go to `target` (a tool pointed elsewhere
   * starts afresh), within the tool's limits.
   */
  run(
    call: ToolInvocation,
    tool: Tool,
    target: string,
    send: () => Promise<BreakerRun<ToolOutcome>>,
  ): Promise<ToolOutcome> {
    const max = tool.maxConcurrency;
    const waitSecs = tool.timeoutSecs ?? this.config.timeoutSecs;
    const since = performance.now();
    // The wait is measured once, whole: for a slot, then for a moment within the rate.
    let measured = !max && !tool.rateLimit;
    const waited = () => {
      if (measured) return;
      measured = true;
      this.metrics.toolQueued(tool.name, (performance.now() - since) / 1000);
    };
    const deadline = since + waitSecs * 1000;
    // Within the circuit: a call it refuses reserves no moment of the rate.
    const paced = tool.rateLimit
      ? () => this.paced(call, tool, target, { deadline, waitSecs, waited }, send)
      : send;
    const guarded = () =>
      this.breakers.run(tool.name, target, paced, (retryInMs) => {
        waited();
        return fail(toolErrors.unavailable(this.config.breakerFailures, retryInMs));
      });
    if (!max) return guarded();
    const limited = { name: tool.name, target, max };
    const notRun = (why: NotRun) => {
      waited();
      return fail(
        why === 'cancelled'
          ? toolErrors.requestFailed('cancelled')
          : toolErrors.busy(max, waitSecs),
      );
    };
    // Its turn in the process first, then across the engine, all within the one wait.
    const started = () => {
      if (!tool.rateLimit) waited();
      return guarded();
    };
    const run = () => this.shared.run(limited, { signal: call.signal, deadline }, started, notRun);
    return this.slots.run(limited, { signal: call.signal, ms: waitSecs * 1000 }, run, notRun);
  }

  /**
   * A retry of `call`: true once its moment within the tool's `rate_limit` has come (at once for
   * a tool without); false, nothing to send, when it would come after `maxWaitMs` or the call is
   * cut short meanwhile.
   */
  async retryMoment(
    call: ToolInvocation,
    tool: Tool,
    target: string,
    maxWaitMs: number,
  ): Promise<boolean> {
    return !tool.rateLimit || (await this.moment(call, tool, target, maxWaitMs)) === 'come';
  }

  /**
   * Sends once the call's moment within the tool's `rate_limit` has come; not at all when it would
   * come after `deadline`, or when the call is cut short meanwhile (the circuit counts neither).
   */
  private async paced(
    call: ToolInvocation,
    tool: Tool,
    target: string,
    wait: { deadline: number; waitSecs: number; waited: () => void },
    send: () => Promise<BreakerRun<ToolOutcome>>,
  ): Promise<BreakerRun<ToolOutcome>> {
    const moment = await this.moment(call, tool, target, wait.deadline - performance.now());
    wait.waited();
    if (moment === 'come') return send();
    const text =
      moment === 'late'
        ? toolErrors.rateLimited(tool.rateLimit!, wait.waitSecs)
        : toolErrors.requestFailed('cancelled');
    return { value: fail(text), backendDown: false, cancelled: true };
  }

  /**
   * Waits for the next moment of `call` within the tool's `rate_limit`: `late` (none reserved)
   * when it would come after `maxWaitMs`, `cancelled` when the call is cut short meanwhile.
   */
  private async moment(
    call: ToolInvocation,
    tool: Tool,
    target: string,
    maxWaitMs: number,
  ): Promise<'come' | 'late' | 'cancelled'> {
    const limit = tool.rateLimit!;
    const ms = await this.rates.reserve({ name: tool.name, target, limit }, Math.max(0, maxWaitMs));
    if (ms === undefined) return 'late';
    if (ms === 0) return 'come';
    return sleep(ms, undefined, { signal: call.signal }).then(
      () => 'come' as const,
      () => 'cancelled' as const,
    );
  }
}

/** A call the guards did not let through: never sent. */
function fail(text: string): ToolOutcome {
  return { ok: false, text, notActed: true };
}
