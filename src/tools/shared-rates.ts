/**
 * A tool's `rate_limit` across the engine: with a Redis session store, across every process and
 * replica sharing it (the moments reserved kept in Redis, on Redis's clock); without, or while
 * Redis is away, across the engine's processes (ENGINE_PROCESSES), by the primary; in a process of
 * its own, by itself. The
 * same rule everywhere (see rate-table.ts). Pure but for the scripts and the link it is given: no
 * Nest import.
 */
import { randomUUID } from 'node:crypto';
import type { ClusterLink } from '../cluster/cluster-link.js';
import type { SharedScripts } from '../sessions/session-store.js';
import { RateTable, type RateLimit } from './rate-table.js';
import { limitKey } from './shared-slots.js';

export interface RatedTool {
  name: string;
  /** Where its requests go: a tool pointed elsewhere counts afresh. */
  target: string;
  limit: RateLimit;
}

/**
 * KEYS[1]: the moments reserved (a sorted set: id → moment). ARGV: calls, window (ms), the
 * longest wait (ms), the id. The wait (ms) from Redis's now, or -1 (none reserved).
 */
const RESERVE = `local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local key, calls, per, longest = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - per)
local n = redis.call('ZCARD', key)
local at = now
if n > 0 then
  at = math.max(at, tonumber(redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')[2]))
  if n >= calls then
    local first = redis.call('ZRANGE', key, n - calls, n - calls, 'WITHSCORES')
    at = math.max(at, tonumber(first[2]) + per)
  end
end
if at - now > longest then return -1 end
redis.call('ZADD', key, at, ARGV[4])
if n + 1 > calls then redis.call('ZREMRANGEBYRANK', key, 0, n - calls) end
redis.call('PEXPIRE', key, at - now + per)
return at - now`;

const PREFIX = 'agent-engine:tool-rates:';

export interface SharedRatesOptions {
  /** Redis could not be asked: the call is paced by the engine's processes (or this one) alone. */
  unavailable?: (error: Error) => void;
}

/** Where a tool's calls reserve their moments. */
export class EngineRates {
  /** This process's own record: outside a cluster. */
  private readonly local = new RateTable();

  constructor(
    private readonly link: ClusterLink,
    private readonly scripts?: SharedScripts,
    private readonly options: SharedRatesOptions = {},
  ) {}

  /**
   * Reserves the next moment for a call of `tool`: how long it waits (ms) before it may send;
   * undefined (nothing reserved) when longer than `maxWaitMs`.
   */
  async reserve(tool: RatedTool, maxWaitMs: number): Promise<number | undefined> {
    const { calls, perMs, group } = tool.limit;
    const key =
      group === undefined
        ? limitKey(tool.name, `${calls}/${perMs} ${tool.target}`)
        : limitKey(`group:${group}`, `${calls}/${perMs}`);
    if (this.scripts) {
      try {
        const wait = Number(
          await this.scripts.run(
            RESERVE,
            [PREFIX + key],
            [String(calls), String(perMs), String(Math.floor(maxWaitMs)), randomUUID()],
          ),
        );
        return wait < 0 ? undefined : wait;
      } catch (error) {
        this.options.unavailable?.(error as Error);
      }
    }
    // Without Redis, or while it is away: the engine's processes together, or this one alone.
    const wait = await this.link.reserveRate(key, { calls, perMs }, maxWaitMs);
    if (wait !== undefined) return wait ?? undefined;
    return this.local.reserve(key, tool.limit, maxWaitMs);
  }
}
