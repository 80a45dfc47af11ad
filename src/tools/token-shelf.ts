/**
 * Where the OAuth 2.0 tokens of a client are kept for the other engine processes (see
 * shared-tokens.ts): Redis, shared by every process and replica; or, without Redis, the primary
 * of ENGINE_PROCESSES (cluster-link.ts, memory-shelf.ts). What a shelf holds is already
 * encrypted. Pure: no Nest import.
 */
import type { ClusterShelf } from '../cluster/primary-state.js';
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

/** The tokens shelf the primary of ENGINE_PROCESSES keeps. */
export function tokensOn(shelf: ClusterShelf): TokenShelf {
  return {
    get: async (key) => (await shelf.entry(key))?.value,
    set: (key, value, ms) => Promise.resolve(shelf.set(key, value, ms)),
    drop: (key, digest) => Promise.resolve(shelf.drop(key, digest)),
  };
}
