/**
 * Tools' `rate_limit`: at most `calls` requests of a tool begin in any `perMs` window. Each call
 * reserves the first moment at which it may begin — now, or, when `calls` began or are to begin
 * within the window before it, when the earliest of those leaves the window — and waits until
 * then. Moments are handed out in order (a call never goes before one that reserved earlier), so
 * waiting calls go first come first served. Pure: used in each process, and by the cluster's
 * primary for all of its processes; Redis keeps the same record for replicas (shared-rates.ts).
 */
export interface RateLimit {
  calls: number;
  perMs: number;
  /** The tools that name it share one record (an API's quota, whichever of its tools calls it). */
  group?: string;
}

/** How often the record forgets limits whose moments have all left their window. */
const SWEEP_MS = 60_000;

export class RateTable {
  /** The moments reserved, by limit's key, oldest first; those out of every window are dropped. */
  private readonly reserved = new Map<string, { moments: number[]; perMs: number }>();
  private sweptAt = -Infinity;

  /** How many limits the record holds moments for. */
  get size(): number {
    return this.reserved.size;
  }

  /**
   * Reserves the next moment for a call of `key`: how long from `now` it waits (ms); undefined,
   * reserving nothing, when that is over `maxWaitMs`.
   */
  reserve(key: string, limit: RateLimit, maxWaitMs: number, now = Date.now()): number | undefined {
    if (now - this.sweptAt >= SWEEP_MS) this.sweep(now);
    let entry = this.reserved.get(key);
    if (!entry) this.reserved.set(key, (entry = { moments: [], perMs: limit.perMs }));
    entry.perMs = limit.perMs;
    const moments = entry.moments;
    let gone = 0;
    while (gone < moments.length && moments[gone]! <= now - limit.perMs) gone++;
    if (gone > 0) moments.splice(0, gone);
    const last = moments.at(-1) ?? now;
    const windowFull = moments.length >= limit.calls;
    const at = Math.max(
      now,
      last,
      windowFull ? moments[moments.length - limit.calls]! + limit.perMs : now,
    );
    if (at - now > maxWaitMs) {
      if (moments.length === 0) this.reserved.delete(key);
      return undefined;
    }
    moments.push(at);
    // A limit lowered since: only the latest `calls` matter.
    if (moments.length > limit.calls) moments.splice(0, moments.length - limit.calls);
    return at - now;
  }

  /** Forgets the limits no longer called (a tool removed, renamed, given another limit). */
  private sweep(now: number): void {
    this.sweptAt = now;
    for (const [key, { moments, perMs }] of this.reserved)
      if ((moments.at(-1) ?? -Infinity) <= now - perMs) this.reserved.delete(key);
  }
}
