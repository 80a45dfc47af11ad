import { MemoryShelf } from './memory-shelf.js';

describe('MemoryShelf (what the primary of ENGINE_PROCESSES keeps: tokens, results)', () => {
  it('keeps an entry for its time, and drops it only while it is the token refused', () => {
    let now = 1000;
    const shelf = new MemoryShelf(10, Infinity, () => now);
    shelf.set('k', JSON.stringify({ h: 'digest-1' }), 500);
    expect(shelf.get('k')).toBe('{"h":"digest-1"}');
    now += 200;
    expect(shelf.entry('k')).toEqual({ value: '{"h":"digest-1"}', ms: 300 });
    shelf.drop('k', 'digest-0'); // a token refused earlier: the newer one stays
    expect(shelf.get('k')).toBeDefined();
    shelf.drop('k', 'digest-1');
    expect(shelf.get('k')).toBeUndefined();
    shelf.set('k', JSON.stringify({ h: 'digest-2' }), 500);
    now += 500;
    expect([shelf.get('k'), shelf.size]).toEqual([undefined, 0]);
  });

  it('keeps at most so many entries, and characters, letting the oldest go', () => {
    const shelf = new MemoryShelf(10_000);
    for (let i = 0; i <= 10_000; i++) shelf.set(`k${i}`, 'v', 60_000);
    expect([shelf.size, shelf.get('k0'), shelf.get('k10000')]).toEqual([10_000, undefined, 'v']);
    const small = new MemoryShelf(100, 10);
    small.set('a', '1234', 1000);
    small.set('b', '1234', 1000);
    small.set('c', '1234', 1000); // 15 characters: the oldest goes
    small.set('d', 'x'.repeat(10), 1000); // over the limit alone: not kept
    expect(['a', 'b', 'c', 'd'].map((k) => small.get(k))).toEqual([
      undefined,
      '1234',
      '1234',
      undefined,
    ]);
  });

  it('lets go of entries whose time is up when swept, asked for or not', () => {
    let now = 0;
    const shelf = new MemoryShelf(10, 100, () => now);
    shelf.set('short', 'x'.repeat(40), 1000);
    shelf.set('long', 'y'.repeat(40), 5000);
    now = 1000;
    shelf.sweep();
    expect([shelf.size, shelf.get('long')]).toEqual([1, 'y'.repeat(40)]);
    // its characters are free again: another entry fits beside the one kept, pushing nothing out
    shelf.set('a', 'z'.repeat(25), 1000);
    expect([shelf.get('long'), shelf.get('a')]).toEqual(['y'.repeat(40), 'z'.repeat(25)]);
  });
});
