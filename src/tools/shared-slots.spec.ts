import { setTimeout as sleep } from 'node:timers/promises';
import { useRedisStores } from '../../test/support/redis-server.js';
import type { SharedScripts } from '../sessions/session-store.js';
import { EventEmitter } from 'node:events';
import { ClusterLink } from '../cluster/cluster-link.js';
import type { ClusterMessage } from '../cluster/messages.js';
import { SlotTable } from '../cluster/slot-table.js';
import { ClusterSlots, SharedSlots } from './shared-slots.js';

const TOOL = { name: 'fragile', target: 'GET http://legacy/', max: 2 };
const never = new AbortController().signal;
const within = (ms: number) => ({ signal: never, deadline: performance.now() + ms });
const notRun = (why: string): any => `not run: ${why}`;

/** Two replicas' views of one Redis: each with a client of its own. */
describe('SharedSlots (a real Redis)', () => {
  const stores = useRedisStores();
  const scripts = (): SharedScripts => stores.at(-1)!.scripts;

  it('runs at most `max` calls at once across replicas, and every call in the end', async () => {
    const replicas = stores.map((s) => new SharedSlots(s.scripts));
    let running = 0;
    let most = 0;
    const call = async (n: number) => {
      most = Math.max(most, ++running);
      await sleep(60);
      running--;
      return n;
    };
    const calls = [0, 1, 2, 3, 4, 5].map((n) =>
      replicas[n % 2]!.run(TOOL, within(5000), () => call(n), notRun),
    );
    expect(await Promise.all(calls)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(most).toBe(2);
  });

  it('gives up at its deadline, or at once when its turn is cut short, without running', async () => {
    const slots = new SharedSlots(scripts());
    const one = { ...TOOL, name: 'single', max: 1 };
    let release: () => void = () => undefined;
    const holding = slots.run(
      one,
      within(1000),
      () => new Promise<string>((r) => (release = () => r('held'))),
      notRun,
    );
    await sleep(20);
    const ran: string[] = [];
    expect(
      await slots.run(
        one,
        within(100),
        () => {
          ran.push('late');
          return Promise.resolve('ran');
        },
        notRun,
      ),
    ).toBe('not run: timed_out');
    const cut = new AbortController();
    setTimeout(() => cut.abort(), 50);
    const started = performance.now();
    expect(
      await slots.run(
        one,
        { signal: cut.signal, deadline: started + 5000 },
        () => Promise.resolve('ran'),
        notRun,
      ),
    ).toBe('not run: cancelled');
    expect(performance.now() - started).toBeLessThan(1000);
    release();
    expect(await holding).toBe('held');
    expect(await slots.run(one, within(1000), () => Promise.resolve('ran'), notRun)).toBe('ran');
    expect(ran).toEqual([]);
  });

  it("frees a crashed holder's slot after its lease, and keeps a running call's by renewing it", async () => {
    const one = { ...TOOL, name: 'leased', max: 1 };
    // A process that took a slot and died: it neither renews nor releases it.
    const dead: SharedScripts = {
      run: (script, keys, args) =>
        script.includes("'TIME'") && script.includes('ZCARD')
          ? scripts().run(script, keys, args)
          : Promise.resolve(0),
    };
    void new SharedSlots(dead, { leaseMs: 600 }).run(
      one,
      within(1000),
      () => new Promise(() => undefined),
      notRun,
    );
    await sleep(20);
    const slots = new SharedSlots(scripts(), { leaseMs: 600 });
    let started = performance.now();
    expect(
      await slots.run(one, within(3000), () => Promise.resolve('after the lease'), notRun),
    ).toBe('after the lease');
    expect(performance.now() - started).toBeGreaterThan(450);
    // A call running three leases long keeps its slot all along.
    const long = slots.run(one, within(1000), () => sleep(1800).then(() => 'long'), notRun);
    await sleep(20);
    started = performance.now();
    expect(await slots.run(one, within(3000), () => Promise.resolve('next'), notRun)).toBe('next');
    expect(performance.now() - started).toBeGreaterThan(1600);
    expect(await long).toBe('long');
  });

  it('runs the call without the shared limit when Redis cannot be asked, and says so', async () => {
    const said: string[] = [];
    const down: SharedScripts = { run: () => Promise.reject(new Error('connection closed')) };
    const slots = new SharedSlots(down, { unavailable: (e) => said.push(e.message) });
    expect(await slots.run(TOOL, within(100), () => Promise.resolve('ran'), notRun)).toBe('ran');
    expect(said).toEqual(['connection closed']);
  });
});

describe('ClusterSlots (the primary keeps the slots)', () => {
  /** An engine process's link to a primary that keeps a SlotTable. */
  const linkedToPrimary = () => {
    const emitter = new EventEmitter();
    const keys = new Set<string>();
    const table = new SlotTable((_owner, id) =>
      setImmediate(() => emitter.emit('message', { kind: 'engine.slots.granted', id })),
    );
    const channel = Object.assign(emitter, {
      send: (m: ClusterMessage) => {
        if (m.kind === 'engine.slots.acquire') {
          keys.add(m.key);
          table.acquire(1, m.id, m.key, m.max);
        }
        if (m.kind === 'engine.slots.release') table.release(m.id);
        return true;
      },
    });
    return { link: new ClusterLink(channel as never), table, keys };
  };

  it('runs calls in the order they asked, gives up at the deadline or when cut short, and gives back every slot', async () => {
    const { link, table, keys } = linkedToPrimary();
    const slots = new ClusterSlots(link);
    const one = { ...TOOL, max: 1 };
    const order: string[] = [];
    const hold = (name: string, ms: number) => () =>
      sleep(ms).then(() => {
        order.push(name);
        return name;
      });
    const first = slots.run(one, within(1000), hold('first', 100), notRun);
    const second = slots.run(one, within(1000), hold('second', 10), notRun);
    const late = slots.run(one, within(50), hold('late', 10), notRun);
    const cut = new AbortController();
    const cancelled = slots.run(
      one,
      { signal: cut.signal, deadline: performance.now() + 1000 },
      hold('cut', 10),
      notRun,
    );
    cut.abort();
    expect(await Promise.all([first, second, late, cancelled])).toEqual([
      'first',
      'second',
      'not run: timed_out',
      'not run: cancelled',
    ]);
    expect(order).toEqual(['first', 'second']);
    expect([...keys].map((key) => table.holding(key))).toEqual([0]);
    // Outside a cluster, the call simply runs.
    expect(
      await new ClusterSlots(new ClusterLink(undefined)).run(
        one,
        within(10),
        hold('alone', 1),
        notRun,
      ),
    ).toBe('alone');
  });
});
