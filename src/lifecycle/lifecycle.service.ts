import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';

/** What drains when the engine stops: given the deadline, it settles once its work is over. */
export type DrainStep = (deadline: Promise<void>) => Promise<void>;

/** What the engine waits for once it has closed (a service's last answers). */
export type LastStep = () => Promise<void>;

/** How long a last step is waited for, and what the log says of one not over by then. */
export interface LastStepBound {
  ms: number;
  late?: () => string;
}

/**
 * The engine's stop, in three phases: first a drain (no new work is taken, work in progress may
 * finish until the deadline), then Nest's close, then the last steps, all together (the session
 * reports, the last spans, the session store's last answers): each waits for its own service,
 * for its own bound, so the stop's time after the drain is the longest of them, not their sum.
 * `draining` and `sessions` are what /health reports.
 */
@Injectable()
export class Lifecycle implements OnApplicationShutdown {
  private readonly logger = new Logger('Engine');
  private state: 'serving' | 'draining' | 'closing' = 'serving';
  /** WebSocket sessions open in this process (kept by the gateway, shown by /health). */
  sessions = 0;
  private readonly steps: DrainStep[] = [];
  private readonly lastSteps = new Map<string, { step: LastStep; bound?: LastStepBound }>();
  /** The last steps under way, by name. */
  private readonly unfinished = new Set<string>();
  private hurryUp: (() => void) | undefined;

  get draining(): boolean {
    return this.state !== 'serving';
  }

  /** The drain is over: what the stop waits for now is the engine's close and its last steps. */
  get drained(): boolean {
    return this.state === 'closing';
  }

  /** Registers work to drain on stop (the gateway's sessions). */
  onDrain(step: DrainStep): void {
    this.steps.push(step);
  }

  /**
   * Registers what the engine waits for once closed, under `name` (said of a stop cut short), for
   * `bound.ms` at most (without one, the step bounds itself).
   */
  lastly(name: string, step: LastStep, bound?: LastStepBound): void {
    this.lastSteps.set(name, { step, ...(bound && { bound }) });
  }

  /** Stops taking new work and waits, `graceMs` at most, for the work in progress to finish. */
  async drain(graceMs: number): Promise<void> {
    this.state = 'draining';
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      this.hurryUp = resolve;
      timer = setTimeout(resolve, graceMs);
    });
    try {
      await Promise.all(this.steps.map((step) => step(deadline)));
    } finally {
      clearTimeout(timer);
      this.state = 'closing';
    }
  }

  /** Ends the grace period now (a second stop signal). */
  hurry(): void {
    this.hurryUp?.();
  }

  /** What a stop still waits for, in words: for the log of a stop cut short. */
  waitingFor(): string {
    if (this.unfinished.size > 0) return [...this.unfinished].join(', ');
    return this.state === 'draining' ? 'the sessions to drain' : 'the engine to close';
  }

  /** Nest has closed (after every module): the last steps run, together, each within its bound. */
  async onApplicationShutdown(): Promise<void> {
    await Promise.all(
      [...this.lastSteps].map(async ([name, { step, bound }]) => {
        this.unfinished.add(name);
        let over = false;
        const run = step()
          .catch((error: unknown) =>
            this.logger.warn(`${name} failed as the engine stopped: ${(error as Error).message}`),
          )
          .finally(() => (over = true));
        let timer: NodeJS.Timeout | undefined;
        if (bound) await Promise.race([run, new Promise((r) => (timer = setTimeout(r, bound.ms)))]);
        else await run;
        clearTimeout(timer);
        this.unfinished.delete(name);
        if (!over)
          this.logger.warn(
            bound?.late?.() ?? `${name}: not over within ${bound!.ms / 1000}s, stopping without`,
          );
      }),
    );
  }
}
