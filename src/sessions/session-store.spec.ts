import { MemorySessionStore } from './session-store.js';

describe('MemorySessionStore', () => {
  let now = 0;
  let store: MemorySessionStore;
  beforeEach(() => {
    now = 1_000;
    store = new MemorySessionStore(() => now);
  });
  afterEach(() => store.close());

  it('gives a saved record to whoever claims it, and then refuses saves by the previous owner', async () => {
    expect(await store.save({ key: 'k', owner: 'a', data: 'v1', ttlSecs: 60 })).toBe(true);
    expect(await store.claim({ key: 'k', owner: 'b', ttlSecs: 60 })).toBe('v1');
    expect(await store.save({ key: 'k', owner: 'a', data: 'stale', ttlSecs: 60 })).toBe(false);
    expect(await store.save({ key: 'k', owner: 'b', data: 'v2', ttlSecs: 60 })).toBe(true);
    expect(await store.claim({ key: 'k', owner: 'c', ttlSecs: 60 })).toBe('v2');
  });

  it('knows nothing of an unknown key', async () => {
    expect(await store.claim({ key: 'nope', owner: 'a', ttlSecs: 60 })).toBeUndefined();
  });

  it('forgets a record after its time to live, which a claim or a save restarts', async () => {
    await store.save({ key: 'k', owner: 'a', data: 'v', ttlSecs: 10 });
    now += 9_000;
    expect(await store.claim({ key: 'k', owner: 'a', ttlSecs: 10 })).toBe('v');
    now += 9_000;
    expect(await store.claim({ key: 'k', owner: 'a', ttlSecs: 10 })).toBe('v');
    now += 10_000;
    expect(await store.claim({ key: 'k', owner: 'a', ttlSecs: 10 })).toBeUndefined();
    // An expired record's owner no longer holds it: anyone may save afresh.
    expect(await store.save({ key: 'k', owner: 'z', data: 'new', ttlSecs: 10 })).toBe(true);
  });

  it('drops expired records that nobody asks for again', async () => {
    await store.save({ key: 'a', owner: 'o', data: 'v', ttlSecs: 1 });
    await store.save({ key: 'b', owner: 'o', data: 'v', ttlSecs: 100 });
    now += 2_000;
    store.sweep();
    expect(store.size).toBe(1);
  });

  it('lets the sessions saved longest ago go first once the saved JSON is over its bound', async () => {
    const small = new MemorySessionStore(() => now, 30_000, 100);
    try {
      const save = (key: string, chars = 40) =>
        small.save({ key, owner: key, data: 'x'.repeat(chars), ttlSecs: 60 });
      await save('a');
      await save('b');
      await save('c'); // 120 characters: a goes
      const has = async (key: string) =>
        (await small.claim({ key, owner: key, ttlSecs: 60 })) !== undefined;
      expect([await has('a'), await has('b'), await has('c')]).toEqual([false, true, true]);
      await save('b'); // saved again: now the newest
      await save('d'); // c goes, not b
      expect([await has('b'), await has('c'), await has('d')]).toEqual([true, false, true]);
      // A session larger than the bound alone is kept, alone.
      await save('e', 150);
      expect([await has('b'), await has('d'), await has('e')]).toEqual([false, false, true]);
    } finally {
      await small.close();
    }
  });
});
