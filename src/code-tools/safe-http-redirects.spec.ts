import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RecordingServer } from '../../test/support/recording-server.js';
import { safeHttp } from './safe-http.js';

/** Loopback addresses only: the two test hosts, 127.0.0.1 and 127.0.0.2. */
const options = {
  allowPrivateNetwork: false,
  allowAddress: (address: string) => address.startsWith('127.'),
  timeoutMs: 2000,
  maxResponseBytes: 4096,
  secrets: ['s3cret-key-value'],
};
const signal = () => new AbortController().signal;

/**
 * Redirects of `ces_requests` to another host: what a code tool sent with a secret filled in
 * (a key header, a body) must not reach a host the code did not name.
 */
describe('safeHttp redirects to another host', () => {
  const first = new RecordingServer();
  const seen: { method: string; headers: IncomingHttpHeaders; body: string }[] = [];
  let other: Server;
  let firstUrl = '';
  let otherUrl = '';
  beforeAll(async () => {
    firstUrl = await first.start();
    other = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ method: req.method!, headers: req.headers, body });
        res.end('elsewhere');
      });
    });
    await new Promise<void>((r) => other.listen(0, '127.0.0.2', r));
    otherUrl = `http://127.0.0.2:${(other.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await first.stop();
    await new Promise((r) => other.close(r));
  });
  beforeEach(() => {
    seen.length = 0;
    first.requests.length = 0;
  });

  const redirect = (status: number, to: () => string) =>
    first.respond((req, res) =>
      req.path === '/start' ? res.writeHead(status, { Location: to() }).end() : res.end('here'),
    );
  const headers = {
    Authorization: 'Bearer user-token',
    Cookie: 'session=1',
    'Proxy-Authorization': 'Basic cHJveHk6cGFzcw==',
    'X-Api-Key': 's3cret-key-value',
    'X-Plain': 'plain',
  };

  it('sends neither credentials nor secrets there, and the rest as asked', async () => {
    redirect(307, () => `${otherUrl}/next`);
    const response = await safeHttp(
      { method: 'POST', url: `${firstUrl}/start`, headers, json_text: '{"note":"hi"}' },
      options,
      signal(),
    );
    expect(response).toMatchObject({ status_code: 200, text: 'elsewhere' });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.headers).not.toHaveProperty('authorization');
    expect(seen[0]!.headers).not.toHaveProperty('cookie');
    expect(seen[0]!.headers).not.toHaveProperty('proxy-authorization');
    expect(seen[0]!.headers).not.toHaveProperty('x-api-key');
    expect(seen[0]!.headers['x-plain']).toBe('plain');
    expect(seen[0]).toMatchObject({ method: 'POST', body: '{"note":"hi"}' });
  });

  it('keeps them on a redirect within the host', async () => {
    redirect(307, () => `${firstUrl}/next`);
    await safeHttp({ method: 'GET', url: `${firstUrl}/start`, headers }, options, signal());
    expect(first.requests.at(-1)!.headers).toMatchObject({
      authorization: 'Bearer user-token',
      cookie: 'session=1',
      'proxy-authorization': 'Basic cHJveHk6cGFzcw==',
      'x-api-key': 's3cret-key-value',
    });
  });

  it('does not follow a redirect that would send a body holding a secret there', async () => {
    redirect(308, () => `${otherUrl}/next`);
    const response = await safeHttp(
      { method: 'POST', url: `${firstUrl}/start`, json_text: '{"key":"s3cret-key-value"}' },
      options,
      signal(),
    );
    expect(response.status_code).toBe(308);
    expect(seen).toHaveLength(0);
    // A 303 drops the body: followed, as a GET.
    redirect(303, () => `${otherUrl}/next`);
    const seeOther = await safeHttp(
      { method: 'POST', url: `${firstUrl}/start`, json_text: '{"key":"s3cret-key-value"}' },
      options,
      signal(),
    );
    expect(seeOther.status_code).toBe(200);
    expect(seen).toEqual([expect.objectContaining({ method: 'GET', body: '' })]);
  });

  it('fails saying so when the Location is no URL; the next request is served', async () => {
    first.respond((_req, res) => res.writeHead(302, { Location: 'http://[::1 /x' }).end('moved'));
    const asked = safeHttp({ method: 'GET', url: `${firstUrl}/start` }, options, signal());
    await expect(asked).rejects.toThrow('the server redirected to an invalid URL (http://[::1 /x)');
    first.respond((_req, res) => res.end('fine'));
    const again = await safeHttp({ method: 'GET', url: `${firstUrl}/ok` }, options, signal());
    expect(again).toMatchObject({ status_code: 200, text: 'fine' });
  });
});
