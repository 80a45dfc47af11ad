/**
 * WS_MAX_TURNS_PER_MINUTE for one session: the turns started in the last minute, a sliding
 * window. Pure: no Nest import.
 */
export class TurnRateLimit {
  /** When the turns of the last minute started (ms, performance.now()). */
  private starts: number[] = [];

  /** `max` turns a minute; 0 for no limit. */
  constructor(private readonly max: number) {}

  /** Counts a turn starting at `now`; false (and not counted) when it would be over the limit. */
  admit(now: number = performance.now()): boolean {
    if (this.max === 0) return true;
    this.starts = this.starts.filter((at) => now - at < 60_000);
    if (this.starts.length >= this.max) return false;
    this.starts.push(now);
    return true;
  }
}
