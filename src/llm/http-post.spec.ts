import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { drainForReuse, postJson } from './http-post.js';

/**
 * A loopback server that answers each request with its connection's number and the number of
 * the request on it; `drop` says which requests it cuts off instead, closing the connection
 * without an answer (a server that had just closed a kept-alive connection as it was reused).
 */
async function server(drop: (nthOnSocket: number) => boolean) {
  const sockets = new Map<Socket, number>();
  const seen: string[] = [];
  const srv: Server = createServer((req, res) => {
    const n = (sockets.get(req.socket) ?? 0) + 1;
    sockets.set(req.socket, n);
    const tag = `${[...sockets.keys()].indexOf(req.socket) + 1}.${n}`;
    seen.push(tag);
    req.resume();
    req.on('end', () => {
      if (drop(n)) req.socket.destroy();
      else res.end(tag);
    });
  });
  srv.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}/v1/chat/completions`;
  return {
    url,
    seen,
    close: () => new Promise((r) => srv.close(r)).then(() => srv.closeAllConnections()),
  };
}

const post = (url: string) =>
  postJson(url, { 'Content-Type': 'application/json' }, '{}', new AbortController().signal);

describe('postJson', () => {
  it('sends a request cut off on a reused connection once more, on a new one', async () => {
    const s = await server((n) => n === 2);
    try {
      expect(await (await post(s.url)).text()).toBe('1.1');
      const second = await post(s.url);
      expect(second.status).toBe(200);
      expect(await second.text()).toBe('2.1');
      expect(s.seen).toEqual(['1.1', '1.2', '2.1']);
    } finally {
      await s.close();
    }
  });

  it('does not send again a request cut off on a new connection, nor a second time', async () => {
    const fresh = await server(() => true);
    try {
      await expect(post(fresh.url)).rejects.toMatchObject({ code: 'ECONNRESET' });
      expect(fresh.seen).toEqual(['1.1']);
    } finally {
      await fresh.close();
    }
    // Two kept connections, both cut when reused: the request goes once more, then fails.
    const always = await server((n) => n >= 2);
    try {
      await Promise.all([post(always.url), post(always.url)].map(async (p) => (await p).text()));
      await new Promise((r) => setImmediate(r));
      await expect(post(always.url)).rejects.toMatchObject({ code: 'ECONNRESET' });
      expect(always.seen.slice(2).sort()).toEqual(['1.2', '2.2']);
    } finally {
      await always.close();
    }
  });

  it('times out a connection only while it is idle in the pool, not while it streams', async () => {
    const s = await server(() => false);
    try {
      const first = await post(s.url);
      const socket = first.body.socket;
      expect(socket.timeout).toBe(0);
      drainForReuse(first.body);
      await new Promise((r) => first.body.once('end', r));
      await new Promise((r) => setImmediate(r));
      expect(socket.timeout).toBe(5000);
      const second = await post(s.url);
      expect(second.body.socket).toBe(socket);
      expect(socket.timeout).toBe(0);
      expect(await second.text()).toBe('1.2');
    } finally {
      await s.close();
    }
  });

  it('reuses the connection of an answer drained to its end', async () => {
    const s = await server(() => false);
    try {
      const first = await post(s.url);
      drainForReuse(first.body);
      await new Promise((r) => first.body.once('end', r));
      await new Promise((r) => setImmediate(r));
      expect(await (await post(s.url)).text()).toBe('1.2');
    } finally {
      await s.close();
    }
  });
});
