import { Inject, Injectable, Logger } from '@nestjs/common';
import { toolsConfig, type ToolsConfig } from '../config/app.config.js';
import { EngineMetrics } from '../metrics/engine-metrics.js';
import type { Tool } from './tool-definition.js';
import { ToolCircuitNews } from './circuit-news.js';
import { ToolBreakers, type BreakerRun } from './tool-breaker.js';
import { toolErrors } from './tool-errors.js';
import type { ToolInvocation, ToolOutcome } from './tool-executor.js';
import { ToolSlots } from './tool-slots.js';

/**
 * What stands between a call and its tool's service, for HTTP and MCP tools alike: its turn
 * among at most `max_concurrency` calls, then the tool's circuit (not sent while its service is
 * down, LLM_TOOL_BREAKER_FAILURES). Shared by every session of the process; the circuits'
 * openings and closings told to the other processes and replicas, and theirs taken up.
 */
@Injectable()
export class ToolGuards {
  private readonly logger = new Logger(ToolGuards.name);
  private readonly breakers: ToolBreakers;
  private readonly slots: ToolSlots;

  constructor(
    @Inject(toolsConfig.KEY) private readonly config: ToolsConfig,
    metrics: EngineMetrics,
    news: ToolCircuitNews,
  ) {
    this.slots = new ToolSlots((tool, seconds) => metrics.toolQueued(tool, seconds));
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
    return this.slots.run(
      { name: tool.name, target, max },
      { signal: call.signal, ms: waitSecs * 1000 },
      guarded,
      (why) =>
        fail(
          why === 'cancelled'
            ? toolErrors.requestFailed('cancelled')
            : toolErrors.busy(max, waitSecs),
        ),
    );
  }
}

function fail(text: string): ToolOutcome {
  return { ok: false, text };
}
