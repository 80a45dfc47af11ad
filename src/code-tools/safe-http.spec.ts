import { RecordingServer } from '../../test/support/recording-server.js';
import { ENGINE_VERSION } from '../version.js';
import { isPublicAddress, safeHttp } from './safe-http.js';

const options = { allowPrivateNetwork: false, timeoutMs: 2000, maxResponseBytes: 1024 };
const signal = () => new AbortController().signal;

describe('safeHttp (ces_requests)', () => {
  const server = new RecordingServer();
  let base: string;
  beforeAll(async () => {
    base = await server.start();
  });
  afterAll(() => server.stop());

  it.each([
    '127.0.0.1',
    '10.0.0.1',
    '192.168.1.1',
    '172.16.0.1',
    '169.254.169.254',
    '::1',
    'fd00:ec2::254',
    '::ffff:127.0.0.1',
    '0.0.0.0',
    '100.64.0.1',
  ])('classifies %s as not public', (ip) => expect(isPublicAddress(ip)).toBe(false));

  it('accepts public addresses', () => {
    expect(isPublicAddress('93.184.216.34')).toBe(true);
    expect(isPublicAddress('2606:4700::1111')).toBe(true);
  });

  it.each([
    'http://127.0.0.1:9/x',
    'http://10.0.0.1/x',
    'http://169.254.169.254/latest/meta-data/',
    'http://[::1]/x',
  ])('refuses %s before connecting', async (url) => {
    await expect(safeHttp({ method: 'GET', url }, options, signal())).rejects.toThrow(
      /refused: .* may not reach \(private, link-local or reserved\)/,
    );
  });

  it('refuses a hostname that resolves to loopback (checked on the resolved address)', async () => {
    const port = new URL(base).port;
    await expect(
      safeHttp({ method: 'GET', url: `http://localhost:${port}/x` }, options, signal()),
    ).rejects.toThrow(
      /localhost resolves to (127\.0\.0\.1|::1), an address this request may not reach/,
    );
    expect(server.requests).toHaveLength(0);
  });

  /** Only the test server's address: its first hop is allowed, any other private one is not. */
  const loopbackOnly = { ...options, allowAddress: (address: string) => address === '127.0.0.1' };

  it('refuses a redirect to a private address, even from an allowed first hop', async () => {
    server.requests.length = 0;
    server.respond((_req, res) =>
      res.writeHead(302, { Location: 'http://169.254.169.254/latest/meta-data/' }).end(),
    );
    await expect(
      safeHttp({ method: 'GET', url: `${base}/start` }, loopbackOnly, signal()),
    ).rejects.toThrow(/refused: 169\.254\.169\.254 .* may not reach/);
    expect(server.requests.map((r) => r.url)).toEqual(['/start']);
  });

  it('follows redirects: a 307 keeps the method and body, a 303 becomes a GET without its body', async () => {
    server.requests.length = 0;
    server.respond((req, res) => {
      if (req.url === '/form') return void res.writeHead(307, { Location: '/kept' }).end();
      if (req.url === '/kept') return void res.writeHead(303, { Location: '/seen' }).end();
      res.end(`${req.method} ${req.url}`);
    });
    const got = await safeHttp(
      { method: 'POST', url: `${base}/form`, form: 'a=1&b=x+y' },
      loopbackOnly,
      signal(),
    );
    expect(got).toMatchObject({ status_code: 200, text: 'GET /seen', url: `${base}/seen` });
    expect(server.requests.map((r) => [r.method, r.url, r.body])).toEqual([
      ['POST', '/form', 'a=1&b=x+y'],
      ['POST', '/kept', 'a=1&b=x+y'],
      ['GET', '/seen', ''],
    ]);
    expect(server.requests[0]!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    // The GET has no body, so no Content-Type either.
    expect(server.requests[2]!.headers).not.toHaveProperty('content-type');
  });

  it('follows at most 3 redirects', async () => {
    server.requests.length = 0;
    server.respond((_req, res) => res.writeHead(302, { Location: '/again' }).end());
    await expect(
      safeHttp({ method: 'GET', url: `${base}/loop` }, loopbackOnly, signal()),
    ).rejects.toThrow('too many redirects (at most 3 are followed)');
    expect(server.requests).toHaveLength(4);
  });

  it("gives up at the request's own timeout when it is shorter than the engine's", async () => {
    server.respond(() => {}); // never answers
    const started = Date.now();
    await expect(
      safeHttp({ method: 'GET', url: `${base}/slow`, timeout: 0.2 }, loopbackOnly, signal()),
    ).rejects.toThrow('timed out');
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('sends params, json and headers and reads the response when private networks are allowed', async () => {
    server.requests.length = 0;
    server.respond((req, res) =>
      res
        .writeHead(201, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ got: req.body })),
    );
    const response = await safeHttp(
      {
        method: 'post',
        url: `${base}/items`,
        params: 'q=a+b&n=2',
        json_text: '{"name":"pen"}',
        headers: { 'X-Key': 'k' },
      },
      { ...options, allowPrivateNetwork: true },
      signal(),
    );
    expect(response).toMatchObject({
      status_code: 201,
      reason: 'Created',
      text: '{"got":"{\\"name\\":\\"pen\\"}"}',
    });
    expect(server.requests[0]).toMatchObject({
      method: 'POST',
      url: '/items?q=a+b&n=2',
      body: '{"name":"pen"}',
    });
    expect(server.requests[0]!.headers).toMatchObject({
      'x-key': 'k',
      'content-type': 'application/json',
    });
  });

  it("keeps the code's own Content-Type in any case, sends no header given None, and sends data rather than json (as requests)", async () => {
    server.requests.length = 0;
    server.respond((_req, res) => res.end('ok'));
    const send = (request: Partial<Parameters<typeof safeHttp>[0]>) =>
      safeHttp(
        { method: 'POST', url: `${base}/items`, ...request },
        { ...options, allowPrivateNetwork: true },
        signal(),
      );
    await send({
      json_text: '{"a":1}',
      headers: { 'content-type': 'application/vnd.api+json', 'X-Gone': null } as never,
    });
    await send({ form: 'a=1', json_text: '{"b":2}' });
    await send({ form: '', json_text: '{"b":2}' });
    const seen = server.requests.map((r) => [r.headers['content-type'], r.body]);
    expect(seen).toEqual([
      ['application/vnd.api+json', '{"a":1}'],
      ['application/x-www-form-urlencoded', 'a=1'],
      ['application/json', '{"b":2}'],
    ]);
    expect(server.requests[0]!.headers).not.toHaveProperty('x-gone');
  });

  it("sends a redirect's cookies on to its host, and gives the redirects followed", async () => {
    server.requests.length = 0;
    server.respond((req, res) =>
      req.path === '/login'
        ? res.writeHead(302, { Location: '/home', 'Set-Cookie': ['sid=s-1; Path=/', 'a=2'] }).end()
        : res.end(`home ${String(req.headers.cookie)}`),
    );
    const response = await safeHttp(
      { method: 'POST', url: `${base}/login`, cookies: { lang: 'it', a: '1' } },
      { ...options, allowPrivateNetwork: true },
      signal(),
    );
    expect(response).toMatchObject({
      text: 'home lang=it; a=2; sid=s-1',
      url: `${base}/home`,
      cookies: {},
      history: [
        {
          status_code: 302,
          reason: 'Found',
          url: `${base}/login`,
          cookies: { sid: 's-1', a: '2' },
          headers: expect.objectContaining({ location: '/home' }),
        },
      ],
    });
    expect(server.requests.map((r) => r.headers.cookie)).toEqual([
      'lang=it; a=1',
      'lang=it; a=2; sid=s-1',
    ]);
  });

  it('sends a body of bytes (an upload) as its bytes, again after a 307', async () => {
    server.requests.length = 0;
    server.respond((req, res) =>
      req.path === '/move' ? res.writeHead(307, { Location: '/items' }).end() : res.end('ok'),
    );
    const bytes = Buffer.from([0, 0xff, 0xc3, 0x28, 10]);
    await safeHttp(
      {
        method: 'PUT',
        url: `${base}/move`,
        data_b64: bytes.toString('base64'),
        json_text: '{"b":2}',
      },
      { ...options, allowPrivateNetwork: true },
      signal(),
    );
    expect(server.requests.map((r) => [r.path, r.bytes.toString('hex')])).toEqual([
      ['/move', bytes.toString('hex')],
      ['/items', bytes.toString('hex')],
    ]);
    expect(server.requests[1]!.headers['content-length']).toBe('5');
    expect(server.requests[1]!.headers).not.toHaveProperty('content-type');
  });

  it('sends a User-Agent and Accept unless the code names them (None: not at all), as requests does', async () => {
    server.requests.length = 0;
    server.respond((_req, res) => res.end('ok'));
    const get = (headers?: Record<string, string | null>) =>
      safeHttp(
        { method: 'GET', url: `${base}/ua`, headers: headers as never },
        { ...options, allowPrivateNetwork: true },
        signal(),
      );
    await get();
    await get({ 'user-agent': 'my-tool/1.0', ACCEPT: 'application/json' });
    await get({ 'User-Agent': null });
    const seen = server.requests.map((r) => [r.headers['user-agent'], r.headers.accept]);
    expect(seen).toEqual([
      [`audio-agent-engine/${ENGINE_VERSION}`, '*/*'],
      ['my-tool/1.0', 'application/json'],
      [undefined, '*/*'],
    ]);
  });

  it('reads the text in the charset the response declares', async () => {
    server.respond((_req, res) =>
      res
        .writeHead(200, { 'Content-Type': 'text/csv; charset=windows-1252' })
        .end(Buffer.from([0x4d, 0xfc, 0x6e, 0x63, 0x68, 0x65, 0x6e, 0x3b, 0x80])),
    );
    const response = await safeHttp(
      { method: 'GET', url: `${base}/legacy.csv` },
      { ...options, allowPrivateNetwork: true },
      signal(),
    );
    expect(response.text).toBe('München;€');
  });

  it('reads at most maxResponseBytes of a body', async () => {
    server.respond((_req, res) => res.end('z'.repeat(100_000)));
    const response = await safeHttp(
      { method: 'GET', url: `${base}/big` },
      { ...options, allowPrivateNetwork: true },
      signal(),
    );
    expect(response.text).toHaveLength(1024);
  });
});
