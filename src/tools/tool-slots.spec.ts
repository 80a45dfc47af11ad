import { collectGarbage } from '../../test/support/gc.js';
import { ToolSlots, type NotRun } from './tool-slots.js';

describe('ToolSlots', () => {
  const tool = { name: 't', target: 'GET http://h/', max: 2 };
  let running: number;
  let peak: number;
  let ran: string[];
  beforeEach(() => ([running, peak, ran] = [0, 0, []]));

  /** A call named `id` that takes `ms`; what it gave, or why it was not run. */
  function call(
    slots: ToolSlots,
    id: string,
    ms: number,
    signal = new AbortController().signal,
    waitMs = 1000,
  ) {
    return slots.run(
      tool,
      { signal, ms: waitMs },
      async () => {
        ran.push(id);
        peak = Math.max(peak, ++running);
        await new Promise((r) => setTimeout(r, ms));
        running--;
        return id;
      },
      (why: NotRun) => `${id} not run: ${why}`,
    );
  }

  it('runs at most max calls at once, the others in order of arrival', async () => {
    const slots = new ToolSlots();
    const results = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((id) => call(slots, id, 30)));
    expect(results).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(ran).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(peak).toBe(2);
  });

  it('gives up a call that waited longer than its wait, and never runs it afterwards', async () => {
    const slots = new ToolSlots();
    const results = await Promise.all([
      call(slots, 'a', 100),
      call(slots, 'b', 100),
      call(slots, 'c', 10, undefined, 30),
    ]);
    expect(results).toEqual(['a', 'b', 'c not run: timed_out']);
    await new Promise((r) => setTimeout(r, 50));
    expect(ran).toEqual(['a', 'b']);
  });

  it('gives up a call at its wait though the memory was collected meanwhile', async () => {
    const slots = new ToolSlots();
    const holders = Promise.all([call(slots, 'a', 1500), call(slots, 'b', 1500)]);
    const waiting = call(slots, 'c', 10, undefined, 300);
    setTimeout(collectGarbage, 50);
    expect(await Promise.race([waiting, holders.then(() => 'the slots freed first')])).toBe(
      'c not run: timed_out',
    );
    await holders;
  });

  it('keeps nothing of a call that waited once it has run, though its wait is not over', async () => {
    const slots = new ToolSlots();
    const kept: WeakRef<object>[] = [];
    const waitingCall = async (id: string) => {
      const turn = { id };
      kept.push(new WeakRef(turn));
      const ran = () => new Promise<string>((r) => setTimeout(() => r(turn.id), 10));
      return slots.run(tool, { signal: new AbortController().signal, ms: 60_000 }, ran, () => '');
    };
    await Promise.all([call(slots, 'a', 30), call(slots, 'b', 30), waitingCall('c')]);
    await new Promise((r) => setTimeout(r, 10));
    collectGarbage();
    expect(kept.filter((ref) => ref.deref() !== undefined)).toHaveLength(0);
  });

  it('tells how long each call waited, a call given up included', async () => {
    const waits: [string, number][] = [];
    const slots = new ToolSlots((name, seconds) => waits.push([name, seconds]));
    await Promise.all([
      call(slots, 'a', 100),
      call(slots, 'b', 100),
      call(slots, 'c', 10, undefined, 40),
    ]);
    expect(waits.slice(0, 2)).toEqual([
      ['t', 0],
      ['t', 0],
    ]);
    expect(waits).toHaveLength(3);
    expect(waits[2]![1]).toBeGreaterThanOrEqual(0.03);
    expect(waits[2]![1]).toBeLessThan(1);
  });

  it('gives up a waiting call whose turn is cut short, at once', async () => {
    const slots = new ToolSlots();
    const turn = new AbortController();
    const busy = Promise.all([call(slots, 'a', 80), call(slots, 'b', 80)]);
    const order: string[] = [];
    const waiting = call(slots, 'c', 10, turn.signal).then((r) => order.push(r));
    setTimeout(() => turn.abort(), 10);
    await Promise.all([busy.then(() => order.push('busy done')), waiting]);
    await new Promise((r) => setTimeout(r, 30));
    expect(order).toEqual(['c not run: cancelled', 'busy done']);
    expect(ran).toEqual(['a', 'b']);
  });

  it('gives a tool redefined with another limit, or pointed elsewhere, slots of its own', async () => {
    const slots = new ToolSlots();
    const hold = (def: typeof tool, id: string) =>
      slots.run(
        def,
        { signal: new AbortController().signal, ms: 20 },
        async () => {
          await new Promise((r) => setTimeout(r, 100));
          return id;
        },
        (why: NotRun) => `${id} not run: ${why}`,
      );
    const one = { ...tool, max: 1 };
    const first = hold(one, 'a');
    // The old definition's only slot is taken: its next call times out waiting.
    expect(await hold(one, 'b')).toBe('b not run: timed_out');
    // Another target, or a wider limit, starts afresh: it runs at once.
    expect(await hold({ ...one, target: 'GET http://other/' }, 'c')).toBe('c');
    expect(await hold({ ...one, max: 3 }, 'd')).toBe('d');
    await first;
  });
});
