/**
 * State the engine processes share, for every kind of it (OAuth 2.0 tokens, `cache_secs`
 * results, background results): in the Redis of SESSION_STORE_URL, shared by every process of
 * every replica; else, with ENGINE_PROCESSES, in the memory of their primary (primary-state.ts,
 * memory-shelf.ts); else nowhere, each process keeping its own. Pure: no Nest import.
 */
import type { Broadcast, SharedScripts } from '../sessions/session-store.js';
import type { ShelfName } from './messages.js';
import { clusterBroadcast, clusterShelf } from './primary-state.js';

/** Entries with a time to live, and lists, kept for every process. */
export interface Shelf {
  /** The entry of `key` and the milliseconds it is still kept; undefined for none. */
  entry(key: string): Promise<{ value: string; ms: number } | undefined>;
  /** Keeps `value` as the entry of `key` for `ms`. */
  set(key: string, value: string, ms: number): Promise<void>;
  /** Deletes the entry of `key` if it is a JSON object whose digest `h` is still `digest`. */
  drop(key: string, digest: string): Promise<void>;
  /** Appends `value` to the list of `key` (a new one if none), kept `ms` from now. */
  append(key: string, value: string, ms: number): Promise<void>;
  /** The list of `key`, taken off the shelf: no other process gets it. */
  take(key: string): Promise<string[]>;
}

const ENTRY = `local value = redis.call('GET', KEYS[1])
if not value then return false end
return {value, redis.call('PTTL', KEYS[1])}`;
const SET = `redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`;
const DROP = `local kept = redis.call('GET', KEYS[1])
if kept then
  local ok, entry = pcall(cjson.decode, kept)
  if not ok or type(entry) ~= 'table' or entry.h == ARGV[1] then redis.call('DEL', KEYS[1]) end
end
return 1`;
const APPEND = `redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;
const TAKE = `local list = redis.call('LRANGE', KEYS[1], 0, -1)
redis.call('DEL', KEYS[1])
return list`;

/** The shelf in the Redis every process and replica shares; each operation atomic. */
export function redisShelf(scripts: SharedScripts): Shelf {
  return {
    entry: async (key) => {
      const found = await scripts.run(ENTRY, [key], []);
      if (!Array.isArray(found) || typeof found[0] !== 'string') return undefined;
      return { value: found[0], ms: Number(found[1]) };
    },
    set: async (key, value, ms) => void (await scripts.run(SET, [key], [value, String(ms)])),
    drop: async (key, digest) => void (await scripts.run(DROP, [key], [digest])),
    append: async (key, value, ms) => void (await scripts.run(APPEND, [key], [value, String(ms)])),
    take: async (key) => {
      const list = await scripts.run(TAKE, [key], []);
      return Array.isArray(list) ? list.map(String) : [];
    },
  };
}

type Store = {
  readonly scripts: SharedScripts | undefined;
  readonly broadcast: Broadcast | undefined;
};
type Link = Parameters<typeof clusterShelf>[0];

/** The shelf `name` of the state shared through Redis, else the primary; undefined for neither. */
export function sharedShelf(store: Store, link: Link, name: ShelfName): Shelf | undefined {
  return store.scripts ? redisShelf(store.scripts) : clusterShelf(link, name);
}

/** Messages to every process, through Redis, else the primary; undefined for neither. */
export function sharedBroadcast(store: Store, link: Link): Broadcast | undefined {
  return store.scripts ? store.broadcast : clusterBroadcast(link);
}
