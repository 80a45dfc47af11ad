import { spawn } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { RecordingServer } from '../../test/support/recording-server.js';
import { HttpFailure, safeHttp, type HttpFailureKind } from './safe-http.js';

const loopback = { allowPrivateNetwork: true, timeoutMs: 2000, maxResponseBytes: 1024 };
const signal = () => new AbortController().signal;

/** How the request failed: the failure's kind (what ces_requests raises) and its message. */
async function failure(
  request: Parameters<typeof safeHttp>[0],
  options = loopback,
): Promise<{ kind: HttpFailureKind; message: string }> {
  const error = await safeHttp(request, options, signal()).then(
    () => new Error('the request did not fail'),
    (e: unknown) => e,
  );
  if (!(error instanceof HttpFailure)) throw error;
  return { kind: error.kind, message: error.message };
}

describe('safeHttp failures, by the kind ces_requests raises', () => {
  const server = new RecordingServer();
  let base: string;
  beforeAll(async () => {
    base = await server.start();
  });
  afterAll(() => server.stop());

  it('a server that takes too long to answer, or stops in the middle of its body: a read timeout', async () => {
    server.respond(() => {}); // never answers
    expect(await failure({ method: 'GET', url: `${base}/silent`, timeout: 0.2 })).toEqual({
      kind: 'read_timeout',
      message: 'timed out',
    });
    server.respond((_req, res) => res.writeHead(200).write('the first half'));
    expect(await failure({ method: 'GET', url: `${base}/stalls`, timeout: 0.3 })).toEqual({
      kind: 'read_timeout',
      message: 'timed out',
    });
  });

  it('a connection that is never accepted: a connect timeout', async () => {
    // A socket that listens and never accepts: once its backlog is full, a connection hangs.
    const listener = spawn('python3', [
      '-c',
      'import socket, time\ns = socket.socket()\ns.bind(("127.0.0.1", 0))\ns.listen(0)\nprint(s.getsockname()[1], flush=True)\ntime.sleep(30)',
    ]);
    const fillers: Socket[] = [];
    try {
      const port = await new Promise<number>((resolve) =>
        listener.stdout.once('data', (d: Buffer) => resolve(Number(String(d).trim()))),
      );
      for (let i = 0; i < 3; i++) fillers.push(connect(port, '127.0.0.1').on('error', () => {}));
      await new Promise((r) => setTimeout(r, 200));
      expect(
        await failure({ method: 'GET', url: `http://127.0.0.1:${port}/`, timeout: 0.4 }),
      ).toEqual({ kind: 'connect_timeout', message: 'timed out' });
    } finally {
      fillers.forEach((socket) => socket.destroy());
      listener.kill();
    }
  });

  it('a body cut off, or a port that refuses: a connection error', async () => {
    server.respond((_req, res) => {
      res.writeHead(200, { 'Content-Length': '100' }).write('partial');
      setTimeout(() => res.socket!.destroy(), 20);
    });
    expect(await failure({ method: 'GET', url: `${base}/cut` })).toEqual({
      kind: 'connection',
      message: 'the server closed the connection before the response was complete',
    });
    expect(await failure({ method: 'GET', url: 'http://127.0.0.1:1/' })).toMatchObject({
      kind: 'connection',
      message: expect.stringContaining('ECONNREFUSED'),
    });
  });

  it("an answer that is not HTTP (a status line of no code): a connection error, as requests' own", async () => {
    server.respond((_req, res) => res.socket!.end('HTTP/1.1 OK\r\nContent-Length: 0\r\n\r\n'));
    expect(await failure({ method: 'GET', url: `${base}/garbled` })).toEqual({
      kind: 'connection',
      message: "the server's answer is not valid HTTP (Parse Error: Invalid status code)",
    });
  });

  it('an address the policy refuses, a redirect loop, and URLs that are none', async () => {
    const publicOnly = { ...loopback, allowPrivateNetwork: false };
    expect(await failure({ method: 'GET', url: `${base}/x` }, publicOnly)).toMatchObject({
      kind: 'refused',
    });
    server.respond((_req, res) => res.writeHead(302, { Location: '/again' }).end());
    expect(await failure({ method: 'GET', url: `${base}/loop` })).toEqual({
      kind: 'redirects',
      message: 'too many redirects (at most 3 are followed)',
    });
    expect(await failure({ method: 'GET', url: 'no url' })).toEqual({
      kind: 'invalid_url',
      message: 'invalid URL "no url"',
    });
    expect(await failure({ method: 'GET', url: 'ftp://example.com/f' })).toEqual({
      kind: 'invalid_url',
      message: 'unsupported URL scheme ftp:',
    });
  });

  it('answers a redirect as it is with allow_redirects false; sends auth as Basic and cookies in one header', async () => {
    server.requests.length = 0;
    server.respond((_req, res) => res.writeHead(302, { Location: '/elsewhere' }).end());
    const response = await safeHttp(
      {
        method: 'GET',
        url: `${base}/moved`,
        allow_redirects: false,
        auth: ['agent', 'pa:ss'],
        cookies: { lang: 'it', theme: 'dark' },
      },
      loopback,
      signal(),
    );
    expect(response).toMatchObject({ status_code: 302, headers: { location: '/elsewhere' } });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.headers).toMatchObject({
      authorization: `Basic ${Buffer.from('agent:pa:ss').toString('base64')}`,
      cookie: 'lang=it; theme=dark',
    });
  });
});
