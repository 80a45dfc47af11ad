/**
 * What the engine processes of ENGINE_PROCESSES share through their primary when there is no
 * Redis: shelves of entries with a time to live (OAuth 2.0 tokens, `cache_secs` results,
 * background results; see memory-shelf.ts) and messages to every process. The clients' side, over
 * a process's ClusterLink. Pure: no Nest import.
 */
import type { Broadcast } from '../sessions/session-store.js';
import type { ClusterLink } from './cluster-link.js';
import type { ShelfName } from './messages.js';
import type { Shelf } from './shelf.js';

type Link = Pick<ClusterLink, 'inCluster' | 'ask' | 'tell' | 'subscribe'>;

/** `name`'s shelf in the primary; undefined outside a cluster. */
export function clusterShelf(link: Link, name: ShelfName): Shelf | undefined {
  if (!link.inCluster) return undefined;
  const got = async (kind: 'engine.shelf.get' | 'engine.shelf.take', key: string) => {
    const reply = await link.ask((id) => ({ kind, id, shelf: name, key }));
    if (reply?.kind !== 'engine.shelf.got' || reply.value === null) return undefined;
    return { value: reply.value, ms: reply.ms };
  };
  // Told, not asked: done once the primary reads it, in the order sent.
  const tell = (message: Parameters<Link['tell']>[0]) => Promise.resolve(link.tell(message));
  return {
    entry: (key) => got('engine.shelf.get', key),
    take: async (key) => {
      const found = await got('engine.shelf.take', key);
      const list: unknown = found === undefined ? [] : JSON.parse(found.value);
      return Array.isArray(list) ? list.map(String) : [];
    },
    set: (key, value, ms) => tell({ kind: 'engine.shelf.set', shelf: name, key, value, ms }),
    append: (key, value, ms) => tell({ kind: 'engine.shelf.append', shelf: name, key, value, ms }),
    drop: (key, digest) => tell({ kind: 'engine.shelf.drop', shelf: name, key, digest }),
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
