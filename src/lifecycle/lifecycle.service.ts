import { Injectable } from '@nestjs/common';

/** What drains when the engine stops: given the deadline, it settles once its work is over. */
export type DrainStep = (deadline: Promise<void>) => Promise<void>;

/**
 * The engine's stop, in two phases: first a drain (no new work is taken, work in progress may
 * finish until the deadline), then Nest's close. `draining` and `sessions` are what /health
 * reports.
 */
@Injectable()
export class Lifecycle {
  private state: 'serving' | 'draining' = 'serving';
  /** WebSocket sessions open in this process (kept by the gateway, shown by /health). */
  sessions = 0;
  private readonly steps: DrainStep[] = [];
  private hurryUp: (() => void) | undefined;

  get draining(): boolean {
    return this.state === 'draining';
  }

  /** Registers work to drain on stop (the gateway's sessions). */
  onDrain(step: DrainStep): void {
    this.steps.push(step);
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
    }
  }

  /** Ends the grace period now (a second stop signal). */
  hurry(): void {
    this.hurryUp?.();
  }
}
