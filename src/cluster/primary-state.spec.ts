import { EventEmitter } from 'node:events';
import { ClusterLink } from './cluster-link.js';
import { MemoryShelf } from './memory-shelf.js';
import type { ClusterMessage } from './messages.js';
import { clusterBroadcast, clusterShelf } from './primary-state.js';

/**
 * An engine process's line to a primary played by the test: its shelves (memory-shelf.ts) and its
 * broadcast, which comes back to the sender too, as primary.ts does.
 */
function linked(): ClusterLink {
  const emitter = new EventEmitter();
  const shelves = {
    tokens: new MemoryShelf(),
    results: new MemoryShelf(),
    background: new MemoryShelf(),
  };
  const reply = (message: ClusterMessage) => setImmediate(() => emitter.emit('message', message));
  const channel = Object.assign(emitter, {
    send: (m: ClusterMessage) => {
      if (m.kind === 'engine.shelf.get' || m.kind === 'engine.shelf.take') {
        const shelf = shelves[m.shelf];
        const entry = m.kind === 'engine.shelf.get' ? shelf.entry(m.key) : shelf.take(m.key);
        reply({
          kind: 'engine.shelf.got',
          id: m.id,
          value: entry?.value ?? null,
          ms: entry?.ms ?? 0,
        });
      } else if (m.kind === 'engine.shelf.set') shelves[m.shelf].set(m.key, m.value, m.ms);
      else if (m.kind === 'engine.shelf.append') shelves[m.shelf].append(m.key, m.value, m.ms);
      else if (m.kind === 'engine.broadcast') reply(m);
      return true;
    },
  });
  return new ClusterLink(channel as unknown as ConstructorParameters<typeof ClusterLink>[0]);
}

describe("the primary's shared state, from an engine process", () => {
  it('is nowhere outside a cluster', () => {
    const alone = new ClusterLink(undefined);
    expect([clusterShelf(alone, 'results'), clusterBroadcast(alone)]).toEqual([
      undefined,
      undefined,
    ]);
  });

  it('keeps entries for their time, and lists taken once', async () => {
    const shelf = clusterShelf(linked(), 'background')!;
    shelf.set('k', 'v', 60_000);
    const entry = await shelf.entry('k');
    expect(entry?.value).toBe('v');
    expect(entry!.ms).toBeGreaterThan(59_000);
    shelf.append('list', 'a', 60_000);
    shelf.append('list', 'b', 60_000);
    expect(await shelf.take('list')).toBe('["a","b"]');
    expect(await shelf.take('list')).toBeUndefined();
    expect(await shelf.entry('missing')).toBeUndefined();
  });

  it('hands a message to every listener of its channel, in this process too', async () => {
    const broadcast = clusterBroadcast(linked())!;
    const heard: string[] = [];
    await broadcast.subscribe('news', (m) => heard.push(`news:${m}`));
    await broadcast.subscribe('other', (m) => heard.push(`other:${m}`));
    await broadcast.publish('news', 'hello');
    await new Promise((r) => setImmediate(r));
    expect(heard).toEqual(['news:hello']);
  });
});
