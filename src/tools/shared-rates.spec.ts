import { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { useRedisStores } from '../../test/support/redis-server.js';
import { ClusterLink } from '../cluster/cluster-link.js';
import type { ClusterMessage } from '../cluster/messages.js';
import type { SharedScripts } from '../sessions/session-store.js';
import { RateTable } from './rate-table.js';
import { EngineRates } from './shared-rates.js';

const TOOL = { name: 'quota', target: 'GET http://api/', limit: { calls: 2, perMs: 1000 } };
const alone = () => new ClusterLink(undefined);

/**
 * Makes `reservations` one after the other: for each, its wait and when its moment comes, in ms
 * after the first's clock reading (within the bounds of the times each took to answer: a busy
 * machine may take a while between them).
 */
async function moments(...reservations: (() => Promise<number | undefined>)[]) {
  const made: { wait: number | undefined; before: number; after: number }[] = [];
  for (const reserve of reservations) {
    const before = Date.now();
    const wait = await reserve();
    made.push({ wait, before, after: Date.now() });
  }
  const first = made[0]!;
  return made.map(({ wait, before, after }) => ({
    wait,
    at: { from: (wait ?? NaN) + before - first.after, to: (wait ?? NaN) + after - first.before },
  }));
}

/**
 * Each moment came `ms` after the first's, give or take 25 ms: Redis reads its clock in another
 * process, and on a busy machine the two readings were seen 5 ms apart, and once 11 (a clean-clone
 * run; a window is 1000 ms, so a pacing off by a window still fails).
 */
function expectAt(made: Awaited<ReturnType<typeof moments>>, ms: number[]) {
  made.forEach(({ at }, i) => {
    expect(at.from).toBeLessThanOrEqual(ms[i]! + 25);
    expect(at.to).toBeGreaterThanOrEqual(ms[i]! - 25);
  });
}

describe('EngineRates with Redis (a real one, two replicas)', () => {
  const stores = useRedisStores();

  it('paces the calls of every replica by one record, on Redis’s clock', async () => {
    const [a, b] = stores.map((s) => new EngineRates(alone(), s.scripts));
    const made = await moments(...[a, b, a, b, a].map((r) => () => r!.reserve(TOOL, 10_000)));
    expect(made.slice(0, 2).map((m) => m.wait)).toEqual([0, 0]);
    // The third and fourth when the first two leave the window, the fifth a window later.
    expectAt(made, [0, 0, 1000, 1000, 2000]);
  });

  it('reserves nothing for a call that would wait too long, and counts a redefined tool afresh', async () => {
    const rates = new EngineRates(alone(), stores[0]!.scripts);
    const tool = { ...TOOL, name: 'tight', limit: { calls: 1, perMs: 60_000 } };
    expect(await rates.reserve(tool, 100)).toBe(0);
    expect(await rates.reserve(tool, 100)).toBeUndefined();
    expect(await rates.reserve(tool, 100)).toBeUndefined();
    expect(await rates.reserve({ ...tool, target: 'GET http://elsewhere/' }, 100)).toBe(0);
    expect(await rates.reserve({ ...tool, limit: { calls: 2, perMs: 60_000 } }, 100)).toBe(0);
    // The record lives as long as its window: not for ever.
    const ttl = await stores[0]!.scripts.run(
      "local k = redis.call('KEYS', 'agent-engine:tool-rates:tight:*') return redis.call('PTTL', k[1])",
      [],
      [],
    );
    expect(Number(ttl)).toBeGreaterThan(50_000);
    expect(Number(ttl)).toBeLessThanOrEqual(60_000);
  });

  it('paces in the process alone when Redis cannot be asked, and says so', async () => {
    const said: string[] = [];
    const down: SharedScripts = { run: () => Promise.reject(new Error('connection closed')) };
    const rates = new EngineRates(alone(), down, { unavailable: (e) => said.push(e.message) });
    expectAt(
      await moments(...[0, 1, 2].map(() => () => rates.reserve(TOOL, 10_000))),
      [0, 0, 1000],
    );
    expect(said).toEqual(['connection closed', 'connection closed', 'connection closed']);
  });
});

describe('EngineRates without Redis', () => {
  const table = new RateTable();
  const asked: string[] = [];
  /** An engine process's link to a primary that keeps a RateTable (one for the block). */
  const linked = () => {
    const emitter = new EventEmitter();
    const channel = Object.assign(emitter, {
      send: (m: ClusterMessage) => {
        if (m.kind !== 'engine.rates.reserve') return true;
        asked.push(m.key);
        const waitMs = table.reserve(m.key, m, m.maxWaitMs) ?? null;
        setImmediate(() =>
          emitter.emit('message', { kind: 'engine.rates.reserved', id: m.id, waitMs }),
        );
        return true;
      },
    });
    return new ClusterLink(channel as never);
  };

  it('asks the primary in a cluster, which keeps one record for every process', async () => {
    const [a, b] = [new EngineRates(linked()), new EngineRates(linked())];
    expectAt(await moments(...[a, b, a].map((r) => () => r.reserve(TOOL, 10_000))), [0, 0, 1000]);
    expect(await b.reserve(TOOL, 100)).toBeUndefined();
    expect(new Set(asked).size).toBe(1);
    expect(asked).toHaveLength(4);
  });

  it('keeps one record for the tools of a group, whatever their names and targets', async () => {
    const rates = new EngineRates(alone());
    const limit = { calls: 1, perMs: 1000, group: 'crm' };
    const read = { name: 'crm_read', target: 'GET http://crm/a', limit };
    const write = { name: 'crm_write', target: 'POST http://crm/b', limit };
    const made = await moments(
      () => rates.reserve(read, 10_000),
      () => rates.reserve(write, 10_000),
    );
    expect(made[0]!.wait).toBe(0);
    expectAt(made, [0, 1000]);
    // Another group, or none, counts apart.
    expect(await rates.reserve({ ...write, limit: { ...limit, group: 'erp' } }, 10_000)).toBe(0);
    expect(await rates.reserve({ ...read, limit: { calls: 1, perMs: 1000 } }, 10_000)).toBe(0);
  });

  it('asks the primary while Redis is away', async () => {
    const down: SharedScripts = { run: () => Promise.reject(new Error('connection closed')) };
    const withRedis = () => new EngineRates(linked(), down);
    const tool = { ...TOOL, name: 'while_down' };
    const [a, b] = [withRedis(), withRedis()];
    expectAt(await moments(...[a, b, a].map((r) => () => r.reserve(tool, 10_000))), [0, 0, 1000]);
  });

  it('keeps its own record in a process of its own', async () => {
    const rates = new EngineRates(alone());
    const reserve = () => rates.reserve(TOOL, 10_000);
    const made = await moments(reserve, reserve, () => sleep(10).then(reserve));
    expect(made.slice(0, 2).map((m) => m.wait)).toEqual([0, 0]);
    expectAt(made, [0, 0, 1000]);
  });
});
