import { ResultCache } from './result-cache.js';
import { validateToolDefinitions } from './tool-validation.js';

const toolOf = (def: Record<string, unknown>) =>
  validateToolDefinitions(
    [{ name: 't', url: 'http://h/x', method: 'GET', cache_secs: 60, ...def }],
    'test',
  ).tools[0]!;

describe('ResultCache', () => {
  const tool = toolOf({});
  const request = { method: 'GET', url: 'http://h/x?q=1', headers: { Accept: 'text/plain' } };

  it('answers the same request of the same definition', () => {
    const cache = new ResultCache();
    cache.set(cache.keyOf(tool, request), 'sunny', 60);
    expect(cache.get(cache.keyOf(tool, { ...request, headers: { accept: 'text/plain' } }))).toBe(
      'sunny',
    );
    // Headers in another order are the same request.
    const two = { ...request, headers: { Accept: 'text/plain', 'X-Customer': '7' } };
    cache.set(cache.keyOf(tool, two), 'rainy', 60);
    expect(
      cache.get(
        cache.keyOf(tool, { ...two, headers: { 'x-customer': '7', accept: 'text/plain' } }),
      ),
    ).toBe('rainy');
  });

  it('tells requests apart by URL, header values and body, and definitions apart', () => {
    const cache = new ResultCache();
    cache.set(cache.keyOf(tool, request), 'sunny', 60);
    expect(cache.get(cache.keyOf(tool, { ...request, url: 'http://h/x?q=2' }))).toBeUndefined();
    expect(
      cache.get(cache.keyOf(tool, { ...request, headers: { Accept: 'application/json' } })),
    ).toBeUndefined();
    expect(cache.get(cache.keyOf(tool, { ...request, body: '{}' }))).toBeUndefined();
    expect(cache.get(cache.keyOf(toolOf({ response_query: 'a' }), request))).toBeUndefined();
  });

  it('gives the same definition the same keys in every process, read from the same file', () => {
    const elsewhere = new ResultCache();
    expect(elsewhere.keyOf(toolOf({}), request)).toBe(new ResultCache().keyOf(tool, request));
    expect(elsewhere.keyOf(toolOf({ cache_secs: 30 }), request)).not.toBe(
      new ResultCache().keyOf(tool, request),
    );
  });

  it('forgets a result after its time', async () => {
    const cache = new ResultCache();
    cache.set(cache.keyOf(tool, request), 'sunny', 0.05);
    expect(cache.get(cache.keyOf(tool, request))).toBe('sunny');
    await new Promise((r) => setTimeout(r, 80));
    expect(cache.get(cache.keyOf(tool, request))).toBeUndefined();
  });

  it('lets go of results past their time when it keeps a new one, at most every 30 s', async () => {
    let now = 1000;
    const cache = new ResultCache(undefined, { now: () => now });
    const keys = ['a', 'b', 'c'].map((city) => cache.keyOf(tool, { ...request, url: city }));
    cache.set(keys[0]!, 'sunny', 10);
    cache.set(keys[1]!, 'rain', 60);
    now = 21_000;
    await new Promise((r) => setTimeout(r, 5)); // the cache's clock is read at most once a ms
    cache.set(keys[2]!, 'snow', 60);
    expect(cache.size).toBe(3); // not yet 30 s since the last purge
    now = 31_000;
    await new Promise((r) => setTimeout(r, 5));
    cache.set(keys[2]!, 'fog', 60);
    expect(cache.size).toBe(2);
    expect(keys.map((k) => cache.get(k))).toEqual([undefined, 'rain', 'fog']);
  });
});
