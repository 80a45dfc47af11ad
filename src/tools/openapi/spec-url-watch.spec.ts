import { specDigest, type SpecVersion } from './spec-source.js';
import { SpecUrlWatch } from './spec-url-watch.js';

describe('SpecUrlWatch', () => {
  /**
   * A watch over documents published at URLs (a text, or an Error when it cannot be read),
   * checked by hand. Each read answers 304 to the validators of the version published; a change
   * reloads the tools from what is published, unless `broken` says that text cannot be used.
   */
  const watchOver = (published: Map<string, string | Error>, inUse: Map<string, string>) => {
    const state = { changes: 0, reads: 0, notModified: 0, broken: new Set<string>() };
    const version = (text: string): SpecVersion => ({
      digest: specDigest(text),
      validators: { etag: `"${specDigest(text)}"` },
    });
    const watch = new SpecUrlWatch(
      () => new Map([...inUse].map(([url, text]) => [url, version(text)])),
      3_600_000,
      (url, validators) => {
        state.reads++;
        const doc = published.get(url);
        if (doc instanceof Error) return Promise.reject(doc);
        const now = version(doc ?? '');
        if (validators?.etag === now.validators.etag) {
          state.notModified++;
          return Promise.resolve({ unchanged: true });
        }
        return Promise.resolve({ text: doc ?? '', validators: now.validators });
      },
      () => {
        state.changes++;
        for (const [url, doc] of published)
          if (typeof doc === 'string' && !state.broken.has(doc) && inUse.has(url))
            inUse.set(url, doc);
        return Promise.resolve();
      },
    );
    return { watch, state };
  };

  it('reports a document that reads differently from the version in use, asking with its validators', async () => {
    const published = new Map<string, string | Error>([['http://a/doc', 'v1']]);
    const inUse = new Map([['http://a/doc', 'v1']]);
    const { watch, state } = watchOver(published, inUse);
    await watch.start();
    await watch.check();
    expect(state).toMatchObject({ changes: 0, reads: 1, notModified: 1 });
    published.set('http://a/doc', 'v2');
    await watch.check();
    expect(state.changes).toBe(1);
    expect(inUse.get('http://a/doc')).toBe('v2');
    await watch.check();
    expect(state).toMatchObject({ changes: 1, notModified: 2 });
    watch.stop();
  });

  it('reports a release published while the tools were loaded: it compares with what they were made from', async () => {
    // The tools were made from v1; v2 was out before the first check.
    const published = new Map<string, string | Error>([['http://a/doc', 'v2']]);
    const inUse = new Map([['http://a/doc', 'v1']]);
    const { watch, state } = watchOver(published, inUse);
    await watch.start();
    expect(state.reads).toBe(0); // started without a read of its own
    await watch.check();
    expect(state.changes).toBe(1);
    expect(inUse.get('http://a/doc')).toBe('v2');
    watch.stop();
  });

  it('changes nothing while a document cannot be read', async () => {
    const published = new Map<string, string | Error>([
      ['http://a/doc', new Error('ECONNREFUSED')],
    ]);
    const inUse = new Map([['http://a/doc', 'v1']]);
    const { watch, state } = watchOver(published, inUse);
    await watch.start();
    await watch.check();
    expect(state.changes).toBe(0);
    published.set('http://a/doc', 'v1');
    await watch.check();
    expect(state.changes).toBe(0);
    published.set('http://a/doc', 'v2');
    await watch.check();
    expect(state.changes).toBe(1);
    watch.stop();
  });

  it('reports a version the tools cannot be made from once; the next one, or the same after a good one, again', async () => {
    const published = new Map<string, string | Error>([['http://a/doc', 'broken']]);
    const inUse = new Map([['http://a/doc', 'v1']]);
    const { watch, state } = watchOver(published, inUse);
    await watch.start();
    state.broken.add('broken');
    await watch.check();
    await watch.check();
    await watch.check();
    expect(state.changes).toBe(1);
    expect(inUse.get('http://a/doc')).toBe('v1');
    // Asked for with the validators of the broken version it read: 304s, not the whole again.
    expect(state.notModified).toBe(2);
    published.set('http://a/doc', new Error('ECONNREFUSED')); // down: no change either
    await watch.check();
    expect(state.changes).toBe(1);
    published.set('http://a/doc', 'v1'); // rolled back: nothing to do
    await watch.check();
    expect(state.changes).toBe(1);
    published.set('http://a/doc', 'broken'); // and released broken again
    await watch.check();
    expect(state.changes).toBe(2);
    published.set('http://a/doc', 'v3');
    await watch.check();
    expect(state.changes).toBe(3);
    expect(inUse.get('http://a/doc')).toBe('v3');
    watch.stop();
  });

  it('leaves a document whose tools are pending to their own tries', async () => {
    let docs = new Map<string, SpecVersion | undefined>([['http://a/doc', undefined]]);
    let reads = 0;
    let changes = 0;
    const watch = new SpecUrlWatch(
      () => docs,
      3_600_000,
      () => (reads++, Promise.resolve({ text: 'v2', validators: {} })),
      () => (changes++, Promise.resolve()),
    );
    await watch.start();
    await watch.check();
    expect({ reads, changes }).toEqual({ reads: 0, changes: 0 });
    docs = new Map([['http://a/doc', { digest: specDigest('v1'), validators: {} }]]);
    await watch.check();
    expect({ reads, changes }).toEqual({ reads: 1, changes: 1 });
    watch.stop();
  });
});
