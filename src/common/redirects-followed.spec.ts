import { followRedirects, type OneHop } from './redirects-followed.js';

/** A `send` that answers from `routes` (path → status and location) and records each hop. */
function server(routes: Record<string, [number, string?]>) {
  const hops: { url: string; method: string; body: unknown; headers: Record<string, string> }[] =
    [];
  const send: OneHop = (url, init) => {
    hops.push({
      url: url.toString(),
      method: init.method ?? 'GET',
      body: init.body ?? null,
      headers: Object.fromEntries(new Headers(init.headers)),
    });
    const [status, location] = routes[url.pathname] ?? [200];
    return Promise.resolve(
      new Response(status < 300 ? `at ${url.pathname}` : null, {
        status,
        headers: location ? { location } : {},
      }),
    );
  };
  return { send, hops };
}

const post = {
  method: 'POST',
  body: '{"a":1}',
  headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
};

describe('followRedirects', () => {
  it('sends each hop itself, resolving a relative Location, to the end', async () => {
    const { send, hops } = server({ '/a': [302, '/b'], '/b': [301, 'http://other.example/c'] });
    const res = await followRedirects(send, new URL('http://api.example/a'));
    expect(await res.text()).toBe('at /c');
    expect(hops.map((h) => h.url)).toEqual([
      'http://api.example/a',
      'http://api.example/b',
      'http://other.example/c',
    ]);
  });

  it('turns a POST into a GET without its body on 301, 302 and 303, and keeps it on 307 and 308', async () => {
    for (const [status, kept] of [
      [301, false],
      [302, false],
      [303, false],
      [307, true],
      [308, true],
    ] as const) {
      const { send, hops } = server({ '/a': [status, '/b'] });
      await followRedirects(send, new URL('http://api.example/a'), post);
      expect(hops[1]).toMatchObject(
        kept
          ? { method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json' } }
          : { method: 'GET', body: null },
      );
      if (!kept) expect(hops[1]!.headers['content-type']).toBeUndefined();
    }
  });

  it('drops the credentials on a hop to another host, or from HTTPS to HTTP, only', async () => {
    const { send, hops } = server({
      '/a': [307, 'https://api.example/b'],
      '/b': [307, 'https://other.example/c'],
    });
    await followRedirects(send, new URL('http://api.example/a'), post);
    expect(hops.map((h) => h.headers.authorization)).toEqual(['Bearer k', 'Bearer k', undefined]);
    const down = server({ '/a': [307, 'http://api.example/b'] });
    await followRedirects(down.send, new URL('https://api.example/a'), post);
    expect(down.hops.map((h) => h.headers.authorization)).toEqual(['Bearer k', undefined]);
  });

  it('stops at 20 redirects, and at a Location that is no HTTP URL, as fetch does', async () => {
    const loop = server({ '/a': [302, '/a'] });
    await expect(followRedirects(loop.send, new URL('http://api.example/a'))).rejects.toThrow(
      expect.objectContaining({ cause: new Error('redirect count exceeded') }),
    );
    expect(loop.hops).toHaveLength(21);
    const file = server({ '/a': [302, 'file:///etc/passwd'] });
    await expect(followRedirects(file.send, new URL('http://api.example/a'))).rejects.toThrow(
      'fetch failed',
    );
    expect(file.hops).toHaveLength(1);
  });

  it('leaves the redirect to a caller that asks for it (manual)', async () => {
    const { send, hops } = server({ '/a': [302, '/b'] });
    const res = await followRedirects(send, new URL('http://api.example/a'), {
      redirect: 'manual',
    });
    expect(res.status).toBe(302);
    expect(hops).toHaveLength(1);
  });
});
