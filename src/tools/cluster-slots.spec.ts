import { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { ClusterLink } from '../cluster/cluster-link.js';
import type { ClusterMessage } from '../cluster/messages.js';
import { SlotTable } from '../cluster/slot-table.js';
import type { SharedScripts } from '../sessions/session-store.js';
import { ClusterSlots, SharedSlots } from './shared-slots.js';

const TOOL = { name: 'fragile', target: 'GET http://legacy/', max: 2 };
const never = new AbortController().signal;
const within = (ms: number) => ({ signal: never, deadline: performance.now() + ms });
const notRun = (why: string): any => `not run: ${why}`;

describe('ClusterSlots (the primary keeps the slots)', () => {
  /** A primary that keeps a SlotTable, and the links of its engine processes to it. */
  const primary = () => {
    const processes: EventEmitter[] = [];
    const keys = new Set<string>();
    // Ids are made of the process's pid: in one test process, the owner tells them apart.
    const table = new SlotTable((owner, id) =>
      setImmediate(() =>
        processes[owner]!.emit('message', {
          kind: 'engine.slots.granted',
          id: id.slice(id.indexOf(' ') + 1),
        }),
      ),
    );
    const link = () => {
      const owner = processes.push(new EventEmitter()) - 1;
      const channel = Object.assign(processes[owner]!, {
        send: (m: ClusterMessage) => {
          if (m.kind === 'engine.slots.acquire') {
            keys.add(m.key);
            table.acquire(owner, `${owner} ${m.id}`, m.key, m.max);
          }
          if (m.kind === 'engine.slots.release') table.release(`${owner} ${m.id}`);
          return true;
        },
      });
      return new ClusterLink(channel as never);
    };
    return { link, table, keys };
  };
  const linkedToPrimary = () => {
    const { link, table, keys } = primary();
    return { link: link(), table, keys };
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

  it('takes its slots from the primary while Redis is away, for every process alike', async () => {
    const { link, table, keys } = primary();
    const down: SharedScripts = { run: () => Promise.reject(new Error('connection closed')) };
    const said: string[] = [];
    const processes = [link(), link()].map(
      (l) =>
        new SharedSlots(down, {
          unavailable: (e) => said.push(e.message),
          fallback: new ClusterSlots(l),
        }),
    );
    let running = 0;
    let most = 0;
    const call = async (n: number) => {
      most = Math.max(most, ++running);
      await sleep(40);
      running--;
      return n;
    };
    const calls = [0, 1, 2, 3, 4, 5].map((n) =>
      processes[n % 2]!.run(TOOL, within(5000), () => call(n), notRun),
    );
    expect(await Promise.all(calls)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(most).toBe(TOOL.max);
    expect(said).toHaveLength(6);
    expect([...keys].map((key) => table.holding(key))).toEqual([0]);
  });
});
