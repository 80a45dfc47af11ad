import { MemoryShelf } from './token-shelf.js';

describe('MemoryShelf (the primary of ENGINE_PROCESSES keeps the tokens)', () => {
  it('keeps an entry for its time, and drops it only while it is the token refused', () => {
    let now = 1000;
    const shelf = new MemoryShelf(() => now);
    shelf.set('k', JSON.stringify({ h: 'digest-1' }), 500);
    expect(shelf.get('k')).toBe('{"h":"digest-1"}');
    shelf.drop('k', 'digest-0'); // a token refused earlier: the newer one stays
    expect(shelf.get('k')).toBeDefined();
    shelf.drop('k', 'digest-1');
    expect(shelf.get('k')).toBeUndefined();
    shelf.set('k', JSON.stringify({ h: 'digest-2' }), 500);
    now += 500;
    expect([shelf.get('k'), shelf.size]).toEqual([undefined, 0]);
  });

  it('keeps at most 10 000 entries, letting the oldest go', () => {
    const shelf = new MemoryShelf();
    for (let i = 0; i <= 10_000; i++) shelf.set(`k${i}`, 'v', 60_000);
    expect([shelf.size, shelf.get('k0'), shelf.get('k10000')]).toEqual([10_000, undefined, 'v']);
  });
});
