/**
 * Where the OAuth 2.0 tokens of a client are kept for the other engine processes (see
 * shared-tokens.ts): Redis, shared by every process and replica; or, without Redis, the primary
 * of ENGINE_PROCESSES (cluster-link.ts). What a shelf holds is already encrypted. Pure: no Nest
 * import.
 */
import type { SharedScripts } from '../sessions/session-store.js';

export interface TokenShelf {
  /** The entry of `key`, if one is kept and has not expired. */
  get(key: string): Promise<string | undefined>;
  /** Keeps `value` as the entry of `key` for `ms`. */
  set(key: string, value: string, ms: number): Promise<void>;
  /** Deletes the entry of `key` if its token's digest (its JSON's `h`) is still `digest`. */
  drop(key: string, digest: string): Promise<void>;
}

const GET = `return redis.call('GET', KEYS[1])`;
const SET = `redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`;
const DROP = `local kept = redis.call('GET', KEYS[1])
if kept and cjson.decode(kept).h == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1`;

/** The shelf in the Redis every process and replica shares. */
export function redisShelf(scripts: SharedScripts): TokenShelf {
  return {
    get: async (key) => {
      const found = await scripts.run(GET, [key], []);
      return typeof found === 'string' ? found : undefined;
    },
    set: async (key, value, ms) => void (await scripts.run(SET, [key], [value, String(ms)])),
    drop: async (key, digest) => void (await scripts.run(DROP, [key], [digest])),
  };
}

/** The most entries a shelf in memory keeps (one per OAuth 2.0 client: a handful). */
const MAX_ENTRIES = 10_000;

/** A shelf in this process's memory: the primary's, for the engine processes without Redis. */
export class MemoryShelf {
  private readonly entries = new Map<string, { value: string; expires: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: string): string | undefined {
    const entry = this.entries.get(key);
    if (entry && entry.expires <= this.now()) this.entries.delete(key);
    else return entry?.value;
    return undefined;
  }

  set(key: string, value: string, ms: number): void {
    this.entries.delete(key);
    this.entries.set(key, { value, expires: this.now() + ms });
    // The entry set longest ago goes first, should a misuse make many.
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= MAX_ENTRIES) break;
      this.entries.delete(oldest);
    }
  }

  drop(key: string, digest: string): void {
    const value = this.get(key);
    if (value === undefined) return;
    try {
      if ((JSON.parse(value) as { h?: unknown }).h !== digest) return;
    } catch {
      // not an entry of ours: dropped
    }
    this.entries.delete(key);
  }
}
