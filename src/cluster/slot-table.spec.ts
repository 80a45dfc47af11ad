import { SlotTable } from './slot-table.js';

describe('SlotTable', () => {
  let granted: string[];
  let table: SlotTable;
  beforeEach(() => {
    granted = [];
    table = new SlotTable((owner, id) => granted.push(`${owner}:${id}`));
  });

  it('grants up to `max` slots of a limit at once, the others in the order they asked', () => {
    for (const [owner, id] of [
      [1, 'a'],
      [2, 'b'],
      [1, 'c'],
      [2, 'd'],
    ] as const)
      table.acquire(owner, id, 'fragile', 2);
    table.acquire(1, 'other', 'another tool', 1);
    expect(granted).toEqual(['1:a', '2:b', '1:other']);
    table.release('b');
    expect(granted.slice(3)).toEqual(['1:c']);
    table.release('a');
    table.release('c');
    expect(granted.slice(4)).toEqual(['2:d']);
    table.release('d');
    expect(table.holding('fragile')).toBe(0);
  });

  it('forgets a request that gave up waiting, and frees the slots of a process that exited', () => {
    table.acquire(1, 'a', 'k', 1);
    table.acquire(2, 'b', 'k', 1);
    table.acquire(2, 'c', 'k', 1);
    table.release('b'); // gave up
    table.dropOwner(1); // exited holding `a`
    expect(granted).toEqual(['1:a', '2:c']);
    table.release('c');
    table.release('unknown');
    expect(table.holding('k')).toBe(0);
  });

  it('keeps the order first come first served when a slot frees while others wait', () => {
    table.acquire(1, 'a', 'k', 1);
    table.acquire(2, 'b', 'k', 1);
    // A newcomer does not pass those waiting, even at the moment a slot is free.
    table.release('a');
    table.acquire(1, 'c', 'k', 1);
    expect(granted).toEqual(['1:a', '2:b']);
    table.release('b');
    expect(granted).toEqual(['1:a', '2:b', '1:c']);
  });
});
