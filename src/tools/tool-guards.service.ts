import { Inject, Injectable, Logger } from '@nestjs/common';
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

/**
 * What stands between a call and its tool's service, for HTTP and MCP tools alike: its turn
 * among at most `max_concurrency` calls, then the tool's circuit (not sent while its service is
 * down, LLM_TOOL_BREAKER_FAILURES). Shared by every session of the process; the circuits'
 * openings and closings told to the other processes and replicas, and theirs taken up; with a
 * Redis session store, `max_concurrency` held across all of them too.
 */
@Injectable()
export class ToolGuards {
  private readonly logger = new Logger(ToolGuards.name);
  private readonly breakers: ToolBreakers;
  private readonly slots: ToolSlots;
  /** `max_concurrency` across processes and replicas (Redis), or the engine's processes (cluster). */
  private readonly shared: EngineSlots;
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
    this.shared = !store.scripts
      ? new ClusterSlots(cluster)
      : new SharedSlots(store.scripts, {
          broadcast: store.broadcast,
          unavailable: (error) => {
            // One line per 10 s while Redis is away.
            if (Date.now() - this.lastUnavailable < 10_000) return;
            this.lastUnavailable = Date.now();
            this.logger.warn(
              `Redis unavailable: max_concurrency holds in each process alone (${error.message})`,
            );
          },
        });
    const cooldown = `${config.breakerCooldownSecs}s, then one tries it again`;
    this.breakers = new ToolBreakers(config.breakerFailures, config.breakerCooldownSecs * 1000, {
      opened: (tool, target, failures, byNews) => {
        this.logger.warn(
          byNews
            ? `tool '${tool}': another engine process found the service down; its calls are not sent here either for ${cooldown}`
            : `tool '${tool}': its last ${failures} calls found the service down; its calls are not sent for ${cooldown}`,
        );
        metrics.toolCircuit(tool, true);
        if (!byNews) news.tell({ tool, target, open: true });
      },
      closed: (tool, target, by) => {
        this.logger.log(
          by === 'news'
            ? `tool '${tool}': another engine process found the service back; calls are sent again`
            : `tool '${tool}': calls are sent again`,
        );
        metrics.toolCircuit(tool, false);
        if (by === 'call') news.tell({ tool, target, open: false });
      },
    });
    news.onNews((told) => this.breakers.told(told));
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
    const guarded = () =>
      this.breakers.run(tool.name, target, send, (retryInMs) =>
        fail(toolErrors.unavailable(this.config.breakerFailures, retryInMs)),
      );
    const max = tool.maxConcurrency;
    if (!max) return guarded();
    const waitSecs = tool.timeoutSecs ?? this.config.timeoutSecs;
    const limited = { name: tool.name, target, max };
    const since = performance.now();
    const waited = () => this.metrics.toolQueued(tool.name, (performance.now() - since) / 1000);
    const notRun = (why: NotRun) => {
      waited();
      return fail(
        why === 'cancelled'
          ? toolErrors.requestFailed('cancelled')
          : toolErrors.busy(max, waitSecs),
      );
    };
    const started = () => (waited(), guarded());
    // Its turn in the process first, then across the engine, all within the one wait.
    const deadline = since + waitSecs * 1000;
    const run = () => this.shared.run(limited, { signal: call.signal, deadline }, started, notRun);
    return this.slots.run(limited, { signal: call.signal, ms: waitSecs * 1000 }, run, notRun);
  }
}

function fail(text: string): ToolOutcome {
  return { ok: false, text };
}
