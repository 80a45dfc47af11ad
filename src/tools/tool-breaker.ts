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

/** A circuit's news, told to the other engine processes and replicas (see circuit-news.ts). */
export interface CircuitNews {
  tool: string;
  /** Where the tool's requests go: a process whose tool goes elsewhere pays it no heed. */
  target: string;
  /** Opened (its service found down), or closed (found back). */
  open: boolean;
}

/** Why a circuit closed: a call found the service back, another process did, or the tool changed. */
export type ClosedBy = 'call' | 'news' | 'redefined';

export interface BreakerEvents {
  /** `byNews`: on another process's word, not this one's calls. */
  opened(tool: string, target: string, failures: number, byNews: boolean): void;
  closed(tool: string, target: string, by: ClosedBy): void;
}

interface Circuit {
  /** What the circuit belongs to: a tool's method and URL (a tool pointed elsewhere starts afresh). */
  target: string;
  policy: CircuitBreakerPolicy;
  openedAt: number;
  /** How long it stays open from `openedAt`: the cool-down, or what was left of another's. */
  openFor: number;
  open: boolean;
  /** Being opened on another process's word. */
  byNews?: boolean;
  /** Being opened on news heard earlier: for what is left of the other's cool-down. */
  holdFor?: number;
}

/** What a call the circuit is told of came to: the service down (nothing is sent). */
const DOWN: BreakerRun<undefined> = { value: undefined, backendDown: true };

/** A cool-down another process began, for a tool not yet called in this one. */
interface Heard {
  target: string;
  until: number;
}

/**
 * One circuit per HTTP tool, shared by every session of the process (cockatiel). After
 * `failures` calls in a row whose backend was down, the tool's calls are not sent for
 * `cooldownMs`: a caller hears at once that the service is unavailable instead of waiting out a
 * timeout each turn. Then one call tries the backend again (calls meanwhile wait for its
 * outcome): a success closes the circuit, a failure opens it for another cool-down. Any answer
 * below 500 counts as the backend being up; a call cut short by its turn counts for nothing (a
 * trial cut short closes the circuit: the next call tries the backend as any call does).
 *
 * The other engine processes and replicas are told (see circuit-news.ts): a circuit another
 * opened opens here too, for a cool-down from when it is heard (or, for a tool this process has
 * not called yet, at its first call within the other's cool-down, for what is left of it); one
 * another closed after a call found the service back closes here.
 */
export class ToolBreakers {
  private readonly circuits = new Map<string, Circuit>();
  private readonly heard = new Map<string, Heard>();

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
    const heard = this.heard.get(name);
    if (heard) {
      this.heard.delete(name);
      const left = heard.until - Date.now();
      if (heard.target === target && left > 0) await this.hold(name, circuit, left);
    }
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
      return refused(Math.max(0, circuit.openedAt + circuit.openFor - Date.now()));
    }
  }

  /** Another process's news of a tool's circuit: taken up if the tool's requests go where its do. */
  told(news: CircuitNews): void {
    if (this.failures === 0) return;
    const known = this.circuits.get(news.tool);
    if (known && known.target !== news.target) return;
    if (!news.open) {
      this.heard.delete(news.tool);
      if (!known?.open) return;
      // A circuit afresh: closed, its count at nought, as after a call that found the service.
      this.circuits.delete(news.tool);
      this.events.closed(news.tool, news.target, 'news');
    } else if (known) void this.hold(news.tool, known);
    else this.heard.set(news.tool, { target: news.target, until: Date.now() + this.cooldownMs });
  }

  /**
   * Opens `circuit` on another process's word, for `forMs` (the cool-down unless said): as many
   * failures as open it, none of them sent.
   */
  private async hold(name: string, circuit: Circuit, forMs?: number): Promise<void> {
    if (circuit.open || this.circuits.get(name) !== circuit) return;
    circuit.byNews = true;
    circuit.holdFor = forMs;
    for (let i = 0; i < this.failures && !circuit.open; i++)
      await circuit.policy.execute(() => Promise.resolve(DOWN)).catch(() => undefined);
    circuit.byNews = false;
    circuit.holdFor = undefined;
  }

  /** Tools whose calls are not sent now (or until a call finds their service back). */
  /**
   * How long the circuit of tool `name` stays open, in ms: undefined when it is closed, or its
   * cool-down is over (the next call tries the service).
   */
  openFor(name: string): number | undefined {
    const circuit = this.circuits.get(name);
    const left = circuit?.open ? circuit.openedAt + circuit.openFor - Date.now() : 0;
    return left > 0 ? left : undefined;
  }

  openTools(): string[] {
    return [...this.circuits].filter(([, c]) => c.open).map(([name]) => name);
  }

  private circuitOf(name: string, target: string): Circuit {
    const known = this.circuits.get(name);
    if (known?.target === target) return known;
    if (known?.open) this.events.closed(name, known.target, 'redefined');
    // Each opening lasts the cool-down, or, on news heard earlier, what is left of the other's.
    const halfOpenAfter = {
      next: () => {
        circuit.openFor = circuit.holdFor ?? this.cooldownMs;
        return { duration: circuit.openFor, next: halfOpenAfter.next };
      },
    };
    const policy = circuitBreaker(
      handleWhenResult((run) => (run as BreakerRun<unknown>).backendDown),
      { halfOpenAfter, breaker: new ConsecutiveBreaker(this.failures) },
    );
    const circuit: Circuit = { target, policy, openedAt: 0, openFor: this.cooldownMs, open: false };
    policy.onBreak(() => {
      circuit.openedAt = Date.now();
      // Opened again after a failed trial: already reported.
      if (!circuit.open) this.events.opened(name, target, this.failures, circuit.byNews === true);
      circuit.open = true;
    });
    policy.onReset(() => {
      circuit.open = false;
      this.events.closed(name, target, 'call');
    });
    this.circuits.set(name, circuit);
    return circuit;
  }
}
