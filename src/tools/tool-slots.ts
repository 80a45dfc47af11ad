import { bulkhead, type BulkheadPolicy } from 'cockatiel';
import { withTimeout } from '../common/timeout-signal.js';

/** Why a call waiting for a slot was not run. */
export type NotRun = 'cancelled' | 'timed_out';

/**
 * Per HTTP tool with `max_concurrency`: at most that many of its calls run at once in the
 * process, across sessions (cockatiel's bulkhead); the others wait their turn, first come first
 * served, for at most the tool's timeout, or until their turn is cut short.
 */
export class ToolSlots {
  private readonly limits = new Map<string, { key: string; policy: BulkheadPolicy }>();

  /** `waited` is told how long each call waited for its turn (0 when a slot was free). */
  constructor(private readonly waited: (tool: string, seconds: number) => void = () => {}) {}

  /**
   * Runs `call` when one of `max` slots of tool `name` (whose requests go to `target`) is free;
   * `notRun` answers when none was within `waitMs` or `signal` aborted first.
   */
  async run<T>(
    tool: { name: string; target: string; max: number },
    wait: { signal: AbortSignal; ms: number },
    call: () => Promise<T>,
    notRun: (why: NotRun) => T,
  ): Promise<T> {
    const policy = this.policyOf(tool);
    if (policy.executionSlots > 0) {
      this.waited(tool.name, 0);
      return policy.execute(call);
    }
    const since = performance.now();
    const seconds = () => (performance.now() - since) / 1000;
    const waited = withTimeout(wait.signal, wait.ms);
    let started = false;
    // A call still queued when its wait ends is dropped by the bulkhead when its turn comes.
    const queued = policy.execute(() => {
      started = true;
      this.waited(tool.name, seconds());
      return call();
    }, waited);
    let giveUp = () => {};
    const givenUp = new Promise<T>((resolve) => {
      giveUp = () => {
        if (started) return;
        this.waited(tool.name, seconds());
        resolve(notRun(wait.signal.aborted ? 'cancelled' : 'timed_out'));
      };
      waited.addEventListener('abort', giveUp, { once: true });
    });
    queued.catch(() => undefined); // dropped after its wait ended: expected
    // Node keeps a signal with a timeout for as long as it has a listener: left on, it held the
    // call (and its turn) until the wait's end, long after the call had run.
    return Promise.race([queued, givenUp]).finally(() =>
      waited.removeEventListener('abort', giveUp),
    );
  }

  private policyOf({ name, target, max }: { name: string; target: string; max: number }) {
    const key = `${max} ${target}`;
    const known = this.limits.get(name);
    if (known?.key === key) return known.policy;
    const policy = bulkhead(max, Infinity);
    this.limits.set(name, { key, policy });
    return policy;
  }
}
