import fc from 'fast-check';
import { RateTable } from './rate-table.js';

const LIMIT = { calls: 3, perMs: 1000 };

describe('RateTable', () => {
  it('lets `calls` begin at once, then each next when the oldest leaves the window', () => {
    const table = new RateTable();
    const waits = [0, 0, 0, 0, 0, 0, 0].map(() => table.reserve('k', LIMIT, 10_000, 0));
    expect(waits).toEqual([0, 0, 0, 1000, 1000, 1000, 2000]);
    // Later, from what is still in the window: 1000, 1000 and 2000 at 1500.
    expect(table.reserve('k', LIMIT, 10_000, 1500)).toBe(500);
    expect(table.reserve('other', LIMIT, 10_000, 1500)).toBe(0);
  });

  it('reserves nothing for a call that would wait longer than it may', () => {
    const table = new RateTable();
    for (let i = 0; i < 3; i++) table.reserve('k', LIMIT, 0, 0);
    expect(table.reserve('k', LIMIT, 999, 0)).toBeUndefined();
    expect(table.reserve('k', LIMIT, 1000, 0)).toBe(1000);
    // Three at 0 and one at 1000: the next at 1000 again, the refused one never counted.
    expect(table.reserve('k', LIMIT, 400, 500)).toBeUndefined();
    expect(table.reserve('k', LIMIT, 500, 500)).toBe(500);
    // Out of the window: the moments at 0 from 1000 on.
    expect(table.reserve('k', LIMIT, 0, 1001)).toBe(0);
    expect(table.reserve('k', LIMIT, 0, 1002)).toBeUndefined();
  });

  it('forgets, within a minute, the limits whose moments all left their window', () => {
    const table = new RateTable();
    for (let i = 0; i < 100; i++) table.reserve(`tool-${i}`, LIMIT, 0, 0);
    table.reserve('long', { calls: 1, perMs: 120_000 }, 0, 0);
    expect(table.size).toBe(101);
    table.reserve('k', LIMIT, 0, 30_000);
    expect(table.size).toBe(102);
    // A minute on: only what is still in its window (and the call made now) is kept.
    table.reserve('k', LIMIT, 0, 60_001);
    expect(table.size).toBe(2);
    expect(table.reserve('long', { calls: 1, perMs: 120_000 }, 0, 60_001)).toBeUndefined();
  });

  it('never lets more than `calls` begin in any window, and hands moments out in order', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 2000 }),
        fc.array(fc.integer({ min: 0, max: 300 }), { minLength: 1, maxLength: 60 }),
        (calls, perMs, gaps) => {
          const table = new RateTable();
          let now = 0;
          const moments: number[] = [];
          for (const gap of gaps) {
            now += gap;
            moments.push(now + table.reserve('k', { calls, perMs }, Infinity, now)!);
          }
          for (let i = 1; i < moments.length; i++)
            expect(moments[i]!).toBeGreaterThanOrEqual(moments[i - 1]!);
          for (let i = calls; i < moments.length; i++)
            expect(moments[i]! - moments[i - calls]!).toBeGreaterThanOrEqual(perMs);
        },
      ),
    );
  });
});
