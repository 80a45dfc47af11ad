import { SpecUrlWatch } from './spec-url-watch.js';

describe('SpecUrlWatch', () => {
  /** A watch over `docs` (a URL's text, or an Error when it cannot be read), checked by hand. */
  const watchOver = (docs: Map<string, string | Error>) => {
    let changes = 0;
    const watch = new SpecUrlWatch(
      () => [...docs.keys()],
      3_600_000,
      (url) => {
        const doc = docs.get(url);
        if (doc instanceof Error) return Promise.reject(doc);
        return Promise.resolve({ text: doc ?? '', validators: {} });
      },
      () => {
        changes++;
        return Promise.resolve();
      },
    );
    return { watch, changes: () => changes };
  };

  it('reports a document that reads differently, not one read for the first time or unchanged', async () => {
    const docs = new Map<string, string | Error>([['http://a/doc', 'v1']]);
    const { watch, changes } = watchOver(docs);
    await watch.start();
    await watch.check();
    expect(changes()).toBe(0);
    docs.set('http://b/doc', 'b1'); // a tool added since: read with the tools, nothing to compare
    await watch.check();
    expect(changes()).toBe(0);
    docs.set('http://a/doc', 'v2');
    await watch.check();
    expect(changes()).toBe(1);
    await watch.check();
    expect(changes()).toBe(1);
    watch.stop();
  });

  it('changes nothing while a document cannot be read, and compares with the last one read', async () => {
    const docs = new Map<string, string | Error>([['http://a/doc', 'v1']]);
    const { watch, changes } = watchOver(docs);
    await watch.start();
    docs.set('http://a/doc', new Error('ECONNREFUSED'));
    await watch.check();
    expect(changes()).toBe(0);
    docs.set('http://a/doc', 'v1');
    await watch.check();
    expect(changes()).toBe(0);
    docs.set('http://a/doc', 'v2');
    await watch.check();
    expect(changes()).toBe(1);
    watch.stop();
  });
});
