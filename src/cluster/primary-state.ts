/**
 * What the engine processes of ENGINE_PROCESSES share through their primary when there is no
 * Redis: shelves of entries with a time to live (OAuth 2.0 tokens, `cache_secs` results,
 * background results; see memory-shelf.ts) and messages to every process. The clients' side, over
 * a process's ClusterLink. Pure: no Nest import.
 */
import type { Broadcast } from '../sessions/session-store.js';
import type { ClusterLink } from './cluster-link.js';
import type { ShelfName } from './messages.js';

/** A shelf the primary keeps. */
export interface ClusterShelf {
  /** The entry of `key` and the milliseconds it is still kept; undefined for none. */
  entry(key: string): Promise<{ value: string; ms: number } | undefined>;
  set(key: string, value: string, ms: number): void;
  /** Drops a token entry if it is still the one of `digest`. */
  drop(key: string, digest: string): void;
  /** Appends `value` to the JSON array of `key`, kept `ms` from now. */
  append(key: string, value: string, ms: number): void;
  /** The JSON array of `key`, taken off the shelf (no other process gets it). */
  take(key: string): Promise<string | undefined>;
}

type Link = Pick<ClusterLink, 'inCluster' | 'ask' | 'tell' | 'subscribe'>;

/** `name`'s shelf in the primary; undefined outside a cluster. */
export function clusterShelf(link: Link, name: ShelfName): ClusterShelf | undefined {
  if (!link.inCluster) return undefined;
  const got = async (kind: 'engine.shelf.get' | 'engine.shelf.take', key: string) => {
    const reply = await link.ask((id) => ({ kind, id, shelf: name, key }));
    if (reply?.kind !== 'engine.shelf.got' || reply.value === null) return undefined;
    return { value: reply.value, ms: reply.ms };
  };
  return {
    entry: (key) => got('engine.shelf.get', key),
    take: async (key) => (await got('engine.shelf.take', key))?.value,
    set: (key, value, ms) => link.tell({ kind: 'engine.shelf.set', shelf: name, key, value, ms }),
    append: (key, value, ms) =>
      link.tell({ kind: 'engine.shelf.append', shelf: name, key, value, ms }),
    drop: (key, digest) => link.tell({ kind: 'engine.shelf.drop', shelf: name, key, digest }),
  };
}

/** Messages to every engine process (this one too), through the primary; undefined outside a cluster. */
export function clusterBroadcast(link: Link): Broadcast | undefined {
  if (!link.inCluster) return undefined;
  return {
    publish: (channel, message) =>
      Promise.resolve(link.tell({ kind: 'engine.broadcast', channel, message })),
    subscribe: (channel, listener) => Promise.resolve(link.subscribe(channel, listener)),
  };
}
