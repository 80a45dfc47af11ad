import { createHmac } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { digestAnswered, DIGEST_CHALLENGE } from './digest.js';
import { echoed, type Handler } from './recording-server.js';

/**
 * The API that test/fixtures/code-tools/ported-requests.py calls as code written for Python's
 * requests calls one: JSON echoed, uploads read back, flaky and cut answers (counted in `hits`,
 * by id), cookies, redirects, Digest auth, HMAC signatures, Link paging, gzip, large bodies.
 */
export function requestsApi(hits: Map<string, number>): Handler {
  return (req, res) => {
    if (req.path === '/echo')
      return void res
        .writeHead(200, { 'Content-Type': 'application/json', 'X-Echo': '1' })
        .end(echoed(req));
    if (req.path === '/upload')
      return void new Request('http://upload/', {
        method: 'POST',
        headers: { 'Content-Type': String(req.headers['content-type']) },
        body: req.bytes,
      })
        .formData()
        .then(async (form) => {
          const parts = [];
          for (const [name, value] of form)
            parts.push(
              typeof value === 'string'
                ? [name, value]
                : [
                    name,
                    value.name,
                    value.type,
                    Buffer.from(await value.arrayBuffer()).toString('hex'),
                  ],
            );
          res.end(JSON.stringify(parts));
        });
    if (req.path === '/raw')
      return void res.end(
        JSON.stringify([req.headers['content-type'] ?? null, req.bytes.toString('hex')]),
      );
    // Fails `fails` times (2 unless given) for each id, with `status` (503 unless given; a
    // 429 asks for a second's wait), then answers.
    if (req.path === '/flaky') {
      const id = req.query.id!;
      hits.set(id, (hits.get(id) ?? 0) + 1);
      if (hits.get(id)! <= Number(req.query.fails ?? 2)) {
        const status = Number(req.query.status ?? 503);
        return void res.writeHead(status, status === 429 ? { 'Retry-After': '1' } : {}).end();
      }
      return void res.end(`answered at try ${hits.get(id)}`);
    }
    // The connection cut before any answer.
    if (req.path === '/cut') {
      hits.set(req.query.id!, (hits.get(req.query.id!) ?? 0) + 1);
      return void res.socket?.destroy();
    }
    // A login that sets its cookie on the redirect to the page that needs it.
    if (req.path === '/signin')
      return void res
        .writeHead(302, { Location: '/welcome', 'Set-Cookie': 'sid=s-9; Path=/; HttpOnly' })
        .end();
    if (req.path === '/welcome')
      return void res.end(`welcome, ${String(req.headers.cookie ?? 'stranger')}`);
    if (req.path === '/digest')
      return void (digestAnswered(req.headers.authorization, req.method, 's3cret')
        ? res.end('let in')
        : res
            .writeHead(401, {
              'WWW-Authenticate': `Basic realm="x", ${DIGEST_CHALLENGE}`,
            })
            .end());
    // Signed as HMAC-signed APIs are: the URL and the body as sent.
    if (req.path === '/signed') {
      const signed = Buffer.concat([
        Buffer.from(`http://${String(req.headers.host)}${req.url}`),
        req.bytes,
      ]);
      const valid =
        createHmac('sha256', 'k').update(signed).digest('hex') === req.headers['x-signature'];
      return void res.end(`${valid ? 'valid' : 'invalid'} ${req.body}`);
    }
    // Pages of a list, linked as GitHub's API links them.
    if (req.path === '/page') {
      const n = Number(req.query.n);
      const page = (at: number) => `<http://${String(req.headers.host)}/page?n=${at}>`;
      const links = [`${page(1)}; rel="first"`, ...(n < 3 ? [`${page(n + 1)}; rel="next"`] : [])];
      return void res.writeHead(200, { Link: links.join(', ') }).end(`page ${n}`);
    }
    if (req.path === '/gzip')
      return void (String(req.headers['accept-encoding']).includes('gzip')
        ? res
            .writeHead(200, { 'Content-Encoding': 'gzip', 'Content-Type': 'application/json' })
            .end(gzipSync('{"squeezed": true}'))
        : res.end('{"squeezed": false}'));
    if (req.path === '/plain') return void res.end('not json');
    if (req.path === '/png')
      return void res
        .writeHead(200, { 'Content-Type': 'image/png' })
        .end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 0xff, 0xfe]));
    // 5 MiB, every byte of it escaped in JSON (10 MiB so).
    if (req.path === '/big') return void res.end(`${'"'.repeat(5 * 1024 * 1024 - 3)}end`);
    if (req.path === '/lines') return void res.end('data: 1\n\ndata: 2\n');
    if (req.path === '/missing') return void res.writeHead(404).end('no');
    if (req.path === '/down') return void res.writeHead(503).end('later');
    if (req.path === '/login')
      return void res
        .writeHead(200, { 'Set-Cookie': ['sid=s-42; Path=/; HttpOnly', 'theme=dark'] })
        .end('welcome');
    if (req.path === '/loop') return void res.writeHead(302, { Location: '/loop' }).end();
    if (req.path === '/slow') return void setTimeout(() => res.end('late'), 1500).unref();
    res.end('ok');
  };
}
