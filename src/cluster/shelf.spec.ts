import { setTimeout as sleep } from 'node:timers/promises';
import { useRedisStores } from '../../test/support/redis-server.js';
import { linked } from '../../test/support/fake-primary.js';
import { ClusterLink } from './cluster-link.js';
import { sharedBroadcast, sharedShelf, type Shelf } from './shelf.js';

/**
 * One contract for both places the processes share state: a real Redis, and the primary of
 * ENGINE_PROCESSES (its shelves answering as primary.ts does). Two shelves on each: two processes.
 */
describe.each(['Redis', 'the primary'])('a shelf in %s', (where) => {
  const stores = useRedisStores();
  let shelves: Shelf[];
  beforeAll(() => {
    const link = linked();
    shelves =
      where === 'Redis'
        ? stores.map((store) => sharedShelf(store, link, 'results')!)
        : [0, 1].map(() =>
            sharedShelf({ scripts: undefined, broadcast: undefined }, link, 'results')!,
          );
  });
  let n = 0;
  const key = () => `test:shelf:${where}:${++n}`;

  it('keeps an entry for its time, for every process, and tells how long it has left', async () => {
    const [a, b] = shelves;
    const k = key();
    await a!.set(k, 'v', 60_000);
    const entry = await b!.entry(k);
    expect(entry?.value).toBe('v');
    expect(entry!.ms).toBeGreaterThan(59_000);
    expect(entry!.ms).toBeLessThanOrEqual(60_000);
    await a!.set(k, 'brief', 50);
    await sleep(120);
    expect([await a!.entry(k), await b!.entry(key())]).toEqual([undefined, undefined]);
  });

  it('drops an entry only while it is the one named (a refused token, not its successor)', async () => {
    const [a, b] = shelves;
    const k = key();
    await a!.set(k, JSON.stringify({ h: 'new' }), 60_000);
    await b!.drop(k, 'old');
    expect((await a!.entry(k))?.value).toBe('{"h":"new"}');
    await b!.drop(k, 'new');
    expect(await a!.entry(k)).toBeUndefined();
    const junk = key();
    await a!.set(junk, 'not json', 60_000);
    await b!.drop(junk, 'any');
    expect(await a!.entry(junk)).toBeUndefined();
  });

  it('keeps lists in order, each taken by one process only, and for their time', async () => {
    const [a, b] = shelves;
    const k = key();
    await a!.append(k, 'first', 60_000);
    await b!.append(k, '{"second":2}', 60_000);
    const taken = await Promise.all([a!.take(k), b!.take(k)]);
    expect(taken.flat()).toEqual(['first', '{"second":2}']);
    expect(taken.filter((list) => list.length > 0)).toHaveLength(1);
    expect(await a!.take(k)).toEqual([]);
    await a!.append(k, 'brief', 50);
    await sleep(120);
    expect(await b!.take(k)).toEqual([]);
  });
});

describe('the shared state chosen', () => {
  const stores = useRedisStores();

  it('is Redis when there is one, else the primary, else none', () => {
    const none = { scripts: undefined, broadcast: undefined };
    const alone = new ClusterLink(undefined);
    expect(sharedShelf(stores[0]!, alone, 'tokens')).toBeDefined();
    expect(sharedBroadcast(stores[0]!, alone)).toBe(stores[0]!.broadcast);
    expect(sharedShelf(none, linked(), 'tokens')).toBeDefined();
    expect(sharedBroadcast(none, linked())).toBeDefined();
    expect([sharedShelf(none, alone, 'tokens'), sharedBroadcast(none, alone)]).toEqual([
      undefined,
      undefined,
    ]);
  });
});
