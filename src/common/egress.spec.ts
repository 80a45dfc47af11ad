import type { lookup as dnsLookup } from 'node:dns';
import { readFileSync } from 'node:fs';
import { createServer, request, type Agent, type Server } from 'node:http';
import { createServer as createTlsServer, request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { EgressProxy } from '../../test/support/egress-proxy.js';
import { TEST_CA, testTls } from '../../test/support/tls.js';
import { BlockedAddressError, guardedLookup, isPublicAddress } from '../tools/address-guard.js';
import {
  egressAgents,
  egressFetch,
  EgressProxyError,
  egressEnvironment,
  egressProxyName,
  lookupCheck,
  renewEgressCredentials,
  useEgress,
} from './egress.js';
import { parseNoProxy } from './no-proxy.js';

/** GET `url` with `agent`: the status and body, or the error. */
function get(url: string, agent: Agent, ca?: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const send = url.startsWith('https:') ? httpsRequest : request;
    const req = send(url, { agent, ca }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve(`${res.statusCode} ${body}`));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('lookupCheck', () => {
  /** A resolver answering `name` with `address`, or failing with `code`. */
  const resolver = (answers: Record<string, string>) =>
    ((host: string, _options: unknown, callback: (...a: unknown[]) => void) => {
      const answer = answers[host] ?? 'ENOTFOUND';
      if (answer.startsWith('E')) callback(Object.assign(new Error(answer), { code: answer }));
      else callback(null, [{ address: answer, family: 4 }]);
    }) as unknown as typeof dnsLookup;
  const check = lookupCheck(
    guardedLookup(
      isPublicAddress,
      resolver({
        'inside.example': '10.1.2.3',
        'api.example': '93.184.215.14',
        'flaky.example': 'ECONNREFUSED',
      }),
    ),
  );

  it('refuses a name that resolves here to an address the policy refuses, and leaves the proxy the names it alone resolves', async () => {
    await expect(check('inside.example')).rejects.toThrow(BlockedAddressError);
    await expect(check('api.example')).resolves.toBeUndefined();
    await expect(check('outside.example')).resolves.toBeUndefined();
    await expect(check('flaky.example')).rejects.toThrow('ECONNREFUSED');
  });
});

describe('the egress proxy', () => {
  const proxy = new EgressProxy({
    hosts: { 'api.example': '127.0.0.1' },
    denied: ['denied.example'],
  });
  const server: Server = createServer((req, res) => res.end(`at ${req.url}`));
  let proxyUrl = '';
  let port = 0;
  beforeAll(async () => {
    proxyUrl = await proxy.start('agent:s3cret');
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  beforeEach(() => {
    proxy.requests.length = 0;
    useEgress({ proxy: proxyUrl, noProxy: parseNoProxy('direct.example, 127.0.0.0/8') });
  });
  afterAll(async () => {
    useEgress({ proxy: '', noProxy: [] });
    server.close();
    await proxy.stop();
  });

  it('sends every request of a kept-alive connection in absolute form, with the credentials', async () => {
    const agent = egressAgents('test:keep', { keepAlive: true })!.http;
    expect(await get(`http://api.example:${port}/a`, agent)).toBe('200 at /a');
    expect(await get(`http://api.example:${port}/b?c=1`, agent)).toBe('200 at /b?c=1');
    expect(proxy.targets).toEqual([
      `GET http://api.example:${port}/a`,
      `GET http://api.example:${port}/b?c=1`,
    ]);
    expect(proxy.requests.map((r) => r.auth)).toEqual(
      Array(2).fill(`Basic ${btoa('agent:s3cret')}`),
    );
  });

  it("reaches EGRESS_NO_PROXY's servers directly", async () => {
    const agents = egressAgents('test:direct')!;
    expect(await get(`http://127.0.0.1:${port}/near`, agents.http)).toBe('200 at /near');
    const secure = createTlsServer(testTls(), (req, res) => res.end(`secure ${req.url}`));
    await new Promise<void>((resolve) => secure.listen(0, '127.0.0.1', resolve));
    const securePort = (secure.address() as AddressInfo).port;
    const ca = readFileSync(TEST_CA);
    expect(await get(`https://127.0.0.1:${securePort}/near`, agents.https, ca)).toBe(
      '200 secure /near',
    );
    secure.close();
    expect(await (await egressFetch(`http://127.0.0.1:${port}/fetched`)).text()).toBe(
      'at /fetched',
    );
    expect(proxy.targets).toEqual([]);
  });

  it("sends a form (a transcription's audio) through the proxy as a form", async () => {
    const echo = createServer((req, res) => {
      res.setHeader('content-type', req.headers['content-type'] ?? '');
      req.pipe(res);
    });
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    const form = new FormData();
    form.append('model', 'whisper-1');
    form.append('file', new Blob([Buffer.from('RIFF')], { type: 'audio/wav' }), 'utterance.wav');
    const url = `http://api.example:${(echo.address() as AddressInfo).port}/audio/transcriptions`;
    const echoed = await egressFetch(url, { method: 'POST', body: form });
    echo.close();
    const read = await new Response(await echoed.arrayBuffer(), {
      headers: { 'content-type': echoed.headers.get('content-type')! },
    }).formData();
    expect(read.get('model')).toBe('whisper-1');
    expect(await (read.get('file') as File).text()).toBe('RIFF');
    expect((read.get('file') as File).name).toBe('utterance.wav');
    expect(proxy.targets).toEqual([`POST ${url}`]);
  });

  it("sends each hop of a redirect as its own server's: a proxied one, then an EGRESS_NO_PROXY one, and back", async () => {
    const hops = createServer((req, res) => {
      const here = `127.0.0.1:${(hops.address() as AddressInfo).port}`;
      if (req.url === '/out') res.writeHead(302, { location: `http://${here}/near` }).end();
      else if (req.url === '/near')
        res.writeHead(307, { location: `http://api.example:${here.split(':')[1]}/far` }).end();
      else res.end(`at ${req.url} via ${req.headers.host}`);
    });
    await new Promise<void>((resolve) => hops.listen(0, '127.0.0.1', resolve));
    const hopsPort = (hops.address() as AddressInfo).port;
    const res = await egressFetch(`http://api.example:${hopsPort}/out`);
    hops.close();
    expect(await res.text()).toBe(`at /far via api.example:${hopsPort}`);
    // The proxy carried the first and the last; the server of EGRESS_NO_PROXY was reached directly.
    expect(proxy.targets).toEqual([
      `GET http://api.example:${hopsPort}/out`,
      `GET http://api.example:${hopsPort}/far`,
    ]);
  });

  it('checks each host before its request goes to the proxy', async () => {
    const check = (host: string) =>
      host === 'api.example' ? Promise.reject(new Error(`refused: ${host}`)) : Promise.resolve();
    const agents = egressAgents('test:check', { check })!;
    await expect(get(`http://api.example:${port}/x`, agents.http)).rejects.toThrow(
      'refused: api.example',
    );
    await expect(get(`https://api.example/x`, agents.https)).rejects.toThrow(
      'refused: api.example',
    );
    expect(proxy.targets).toEqual([]);
  });

  it("says a tunnel the proxy refused is the proxy's refusal, by either client", async () => {
    const refusal = 'the egress proxy refused the connection to denied.example:443 (HTTP 403)';
    const tunnel = get('https://denied.example/x', egressAgents('test:refused')!.https);
    await expect(tunnel).rejects.toThrow(EgressProxyError);
    await expect(tunnel).rejects.toThrow(refusal);
    const fetched = egressFetch('https://denied.example/x');
    await expect(fetched).rejects.toThrow(EgressProxyError);
    await expect(fetched).rejects.toThrow(refusal);
    expect(proxy.targets).toEqual(['CONNECT denied.example:443', 'CONNECT denied.example:443']);
  });

  it('says a proxy that cannot be reached is the proxy', async () => {
    useEgress({ proxy: 'http://127.0.0.1:1', noProxy: [] });
    const agents = egressAgents('test:down')!;
    for (const url of ['http://api.example/x', 'https://api.example/x']) {
      const sent = get(url, agents[url.startsWith('https:') ? 'https' : 'http']);
      await expect(sent).rejects.toThrow(EgressProxyError);
      await expect(sent).rejects.toThrow('cannot reach the egress proxy (ECONNREFUSED)');
    }
  });

  it('sends renewed credentials from the next connection on, by every client, to the proxy in use', async () => {
    const secure = createTlsServer(testTls(), (req, res) => res.end(`secure ${req.url}`));
    await new Promise<void>((resolve) => secure.listen(0, '127.0.0.1', resolve));
    const tls = { ca: readFileSync(TEST_CA) };
    const kept = egressAgents('test:renew', { keepAlive: true })!.http;
    const tunnels = egressAgents('test:renew-tunnel')!.https;
    const secureUrl = `https://localhost:${(secure.address() as AddressInfo).port}`;
    /** A request by each client: a kept-alive agent, a tunnel, fetch, fetch with a CA of its own. */
    const everyClient = async () => {
      proxy.requests.length = 0;
      const said = [
        await get(`http://api.example:${port}/kept`, kept),
        await get(`${secureUrl}/tunnel`, tunnels, tls.ca),
        `${(await egressFetch(`http://api.example:${port}/fetched`)).status}`,
        `${(await egressFetch(`${secureUrl}/fetched`, {}, tls)).status}`,
      ];
      return { said, auth: proxy.requests.map((r) => r.auth) };
    };
    const strict = new EgressProxy({ hosts: { 'api.example': '127.0.0.1' } });
    const strictUrl = await strict.start('agent:s3cret');
    const basic = (pair: string) => `Basic ${btoa(pair)}`;
    try {
      expect(await everyClient()).toEqual({
        said: ['200 at /kept', '200 secure /tunnel', '200', '200'],
        auth: Array(4).fill(basic('agent:s3cret')),
      });
      proxy.requireCredentials('agent:n3w+');
      // Another proxy's address is not taken up: only the credentials, with a restart for the rest.
      renewEgressCredentials(strictUrl.replace('agent:s3cret', 'agent:n3w%2B'));
      expect(await everyClient()).toEqual({
        said: ['200 at /kept', '200 secure /tunnel', '200', '200'],
        auth: Array(4).fill(basic('agent:n3w+')),
      });
      expect(strict.requests).toEqual([]);
      expect(egressProxyName()).toBe(`http://${new URL(proxyUrl).host}`);
      // The programs the engine starts from now on read the new ones.
      expect(egressEnvironment().HTTPS_PROXY).toBe(proxyUrl.replace('s3cret', 'n3w%2B'));
    } finally {
      proxy.requireCredentials(undefined);
      secure.close();
      await strict.stop();
    }
  });

  it('names the proxy without its credentials, and sends straight when none is set', () => {
    expect(egressProxyName()).toBe(`http://${new URL(proxyUrl).host}`);
    useEgress({ proxy: '', noProxy: [] });
    expect(egressProxyName()).toBe('');
    expect(egressAgents('test:none')).toBeUndefined();
  });
});
