import { setTimeout as sleep } from 'node:timers/promises';
import { useRedisStores } from '../../test/support/redis-server.js';
import type { SharedScripts } from '../sessions/session-store.js';
import { SharedSlots, SLOTS_CHANNEL } from './shared-slots.js';

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

  /** A slot of `one` held on `slots` until the returned function is called. */
  function hold(slots: SharedSlots, one: typeof TOOL): () => Promise<unknown> {
    let release: () => void = () => undefined;
    const held = slots.run(
      one,
      within(10_000),
      () => new Promise<void>((r) => (release = r)),
      notRun,
    );
    return () => (release(), held);
  }

  it('grants slots across replicas first come first served, however long each has waited', async () => {
    const one = { ...TOOL, name: 'queued', max: 1 };
    const [a, b] = stores.map((s) => new SharedSlots(s.scripts, { broadcast: s.broadcast }));
    const release = hold(a!, one);
    await sleep(20);
    const order: string[] = [];
    const waiting: Promise<unknown>[] = [];
    // The first waiter has waited longest: a newcomer, asking more often, must not pass it.
    let now = 0;
    for (const [name, replica, at] of [
      ['first', b, 0],
      ['second', a, 300],
      ['third', b, 400],
      ['fourth', a, 500],
    ] as const) {
      await sleep(at - now);
      now = at;
      const call = () => sleep(30).then(() => order.push(name));
      waiting.push(replica!.run(one, within(10_000), call, notRun));
    }
    await sleep(100);
    await release();
    await Promise.all(waiting);
    expect(order).toEqual(['first', 'second', 'third', 'fourth']);
  });

  it('tells a waiter of a freed slot at once, without waiting to ask again', async () => {
    const one = { ...TOOL, name: 'told', max: 1 };
    const [a, b] = stores.map(
      (s) => new SharedSlots(s.scripts, { broadcast: s.broadcast, longestWaitMs: 10_000 }),
    );
    const release = hold(a!, one);
    await sleep(20);
    let ranAt = 0;
    const waited = b!.run(
      one,
      within(20_000),
      () => Promise.resolve(void (ranAt = performance.now())),
      notRun,
    );
    // It has asked at 0, 10, 30, 70, 150, 310, 630 and 1270 ms: next at 2550 on its own.
    await sleep(1400);
    const releasedAt = performance.now();
    await release();
    await waited;
    expect(ranAt - releasedAt).toBeLessThan(600);
  });

  it('tells of a freed slot only when a call waits for one', async () => {
    const one = { ...TOOL, name: 'quiet', max: 1 };
    const told: string[] = [];
    await stores[0]!.broadcast.subscribe(SLOTS_CHANNEL, (key) => told.push(key));
    const slots = new SharedSlots(scripts(), { broadcast: stores.at(-1)!.broadcast });
    await slots.run(one, within(1000), () => Promise.resolve(1), notRun);
    await slots.run(one, within(1000), () => Promise.resolve(2), notRun);
    await sleep(100);
    expect(told).toEqual([]);
    const release = hold(slots, one);
    await sleep(20);
    const waiting = slots.run(one, within(5000), () => Promise.resolve(3), notRun);
    await sleep(50);
    await release();
    expect(await waiting).toBe(3);
    await sleep(100);
    expect(told).toEqual([expect.stringContaining('quiet')]);
  });

  it('keeps the place of a waiter gone silent only for its lease, and drops one that gave up at once', async () => {
    const one = { ...TOOL, name: 'silent', max: 1 };
    const options = (s: (typeof stores)[number]) => ({ broadcast: s.broadcast, waitLeaseMs: 500 });
    const slots = new SharedSlots(scripts(), options(stores.at(-1)!));
    let release = hold(slots, one);
    await sleep(20);
    // A process that queued a call and died: it asks once, then never again, nor leaves.
    let asked = false;
    const dead: SharedScripts = {
      run: (script, keys, args) =>
        asked ? new Promise(() => undefined) : ((asked = true), scripts().run(script, keys, args)),
    };
    void new SharedSlots(dead, { waitLeaseMs: 500 }).run(
      one,
      within(10_000),
      () => Promise.resolve(0),
      notRun,
    );
    await sleep(20);
    const next = slots.run(one, within(10_000), () => Promise.resolve(performance.now()), notRun);
    await sleep(20);
    const releasedAt = performance.now();
    await release();
    expect((await next) - releasedAt).toBeGreaterThan(350);

    // One that gave up waiting leaves the queue: the one behind it does not wait for its lease.
    const other = new SharedSlots(stores[0]!.scripts, {
      ...options(stores[0]!),
      waitLeaseMs: 60_000,
    });
    release = hold(slots, one);
    await sleep(20);
    expect(await other.run(one, within(100), () => Promise.resolve('ran'), notRun)).toBe(
      'not run: timed_out',
    );
    const behind = slots.run(one, within(10_000), () => Promise.resolve(performance.now()), notRun);
    await sleep(20);
    const freedAt = performance.now();
    await release();
    expect((await behind) - freedAt).toBeLessThan(2000);
  });

  it('runs the call without a shared limit when Redis cannot be asked and there is no primary, and says so', async () => {
    const said: string[] = [];
    const down: SharedScripts = { run: () => Promise.reject(new Error('connection closed')) };
    const slots = new SharedSlots(down, { unavailable: (e) => said.push(e.message) });
    expect(await slots.run(TOOL, within(100), () => Promise.resolve('ran'), notRun)).toBe('ran');
    expect(said).toEqual(['connection closed']);
  });
});
