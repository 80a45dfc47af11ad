import {
  circuitBreaker,
  ConsecutiveBreaker,
  handleWhenResult,
  isBrokenCircuitError,
  type CircuitBreakerPolicy,
} from 'cockatiel';

/** What one call came to, for its tool's circuit: its result, and whether the backend was down. */
export interface BreakerRun<T> {
  value: T;
  /** Timed out, unreachable, or an HTTP 5xx: the backend, not the call, failed. */
  backendDown: boolean;
  /** Cut short by its turn: it says nothing of the backend. */
  cancelled?: boolean;
}

/** A call cut short, passed through the circuit as an error it does not count. */
class CutShort extends Error {
  constructor(readonly run: BreakerRun<unknown>) {
    super('cut short');
  }
}

export interface BreakerEvents {
  opened(tool: string, failures: number): void;
  closed(tool: string): void;
}

interface Circuit {
  /** What the circuit belongs to: a tool's method and URL (a tool pointed elsewhere starts afresh). */
  target: string;
  policy: CircuitBreakerPolicy;
  openedAt: number;
  open: boolean;
}

/**
 * One circuit per HTTP tool, shared by every session of the process (cockatiel). After
 * `failures` calls in a row whose backend was down, the tool's calls are not sent for
 * `cooldownMs`: a caller hears at once that the service is unavailable instead of waiting out a
 * timeout each turn. Then one call tries the backend again (calls meanwhile wait for its
 * outcome): a success closes the circuit, a failure opens it for another cool-down. Any answer
 * below 500 counts as the backend being up; a call cut short by its turn counts for nothing (a
 * trial cut short closes the circuit: the next call tries the backend as any call does).
 */
export class ToolBreakers {
  private readonly circuits = new Map<string, Circuit>();

  constructor(
    private readonly failures: number,
    private readonly cooldownMs: number,
    private readonly events: BreakerEvents,
  ) {}

  /**
   * Runs `call` through the circuit of tool `name` (whose requests go to `target`); while the
   * circuit is open, `refused(retryInMs)` is the answer and nothing is sent.
   */
  async run<T>(
    name: string,
    target: string,
    call: () => Promise<BreakerRun<T>>,
    refused: (retryInMs: number) => T,
  ): Promise<T> {
    if (this.failures === 0) return (await call()).value;
    const circuit = this.circuitOf(name, target);
    try {
      const counted = async () => {
        const run = await call();
        if (run.cancelled) throw new CutShort(run);
        return run;
      };
      return (await circuit.policy.execute(counted)).value;
    } catch (error) {
      if (error instanceof CutShort) return error.run.value as T;
      if (!isBrokenCircuitError(error)) throw error;
      return refused(Math.max(0, circuit.openedAt + this.cooldownMs - Date.now()));
    }
  }

  /** Tools whose calls are not sent now (or until a call finds their service back). */
  openTools(): string[] {
    return [...this.circuits].filter(([, c]) => c.open).map(([name]) => name);
  }

  private circuitOf(name: string, target: string): Circuit {
    const known = this.circuits.get(name);
    if (known?.target === target) return known;
    if (known?.open) this.events.closed(name);
    const policy = circuitBreaker(
      handleWhenResult((run) => (run as BreakerRun<unknown>).backendDown),
      { halfOpenAfter: this.cooldownMs, breaker: new ConsecutiveBreaker(this.failures) },
    );
    const circuit: Circuit = { target, policy, openedAt: 0, open: false };
    policy.onBreak(() => {
      circuit.openedAt = Date.now();
      // Opened again after a failed trial: already reported.
      if (!circuit.open) this.events.opened(name, this.failures);
      circuit.open = true;
    });
    policy.onReset(() => {
      circuit.open = false;
      this.events.closed(name);
    });
    this.circuits.set(name, circuit);
    return circuit;
  }
}
