import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { listenOn, onBadPort } from '../../test/support/bad-port.js';
import { EgressProxy } from '../../test/support/egress-proxy.js';
import { TEST_CA, testTls } from '../../test/support/tls.js';
import { egressFetch, useEgress } from './egress.js';

/** Answers with what it was asked: the method, the Host header, the path and the body. */
async function echo(req: IncomingMessage, res: ServerResponse) {
  let body = '';
  for await (const chunk of req) body += String(chunk);
  res.end(`${req.method} ${req.headers.host} ${req.url} ${body}`);
}

// fetch refuses the Fetch standard's "bad ports" (X11's 6000, IRC's 6665–6669, SIP's 5060, …),
// a browser's rule: the engine's servers (LLM, speech, MCP, webhooks) may listen on one.
describe('egressFetch to a server on a port fetch calls bad', () => {
  const plain = createServer((req, res) => void echo(req, res));
  const secure = createTlsServer(testTls(), (req, res) => void echo(req, res));
  const redirecting = createServer((_req, res) =>
    res.writeHead(307, { location: `http://127.0.0.1:${bad}/moved` }).end(),
  );
  let bad = 0;
  let badTls = 0;
  beforeAll(async () => {
    bad = await onBadPort(listenOn(plain));
    badTls = await onBadPort(listenOn(secure));
    await listenOn(redirecting)(0);
  });
  afterAll(() => {
    for (const server of [plain, secure, redirecting]) server.close();
  });

  it('is refused by fetch itself', async () => {
    await expect(fetch(`http://127.0.0.1:${bad}/`)).rejects.toMatchObject({
      cause: expect.objectContaining({ message: 'bad port' }),
    });
  });

  it('reaches it, with its port in the Host header, a body, and after a redirect to it', async () => {
    const posted = await egressFetch(`http://127.0.0.1:${bad}/chat?x=1`, {
      method: 'POST',
      body: '{"a":1}',
    });
    expect(await posted.text()).toBe(`POST 127.0.0.1:${bad} /chat?x=1 {"a":1}`);
    const port = (redirecting.address() as AddressInfo).port;
    const moved = await egressFetch(`http://127.0.0.1:${port}/old`);
    expect(await moved.text()).toBe(`GET 127.0.0.1:${bad} /moved `);
  });

  it('reaches it over HTTPS with a client certificate setting (its own dispatcher)', async () => {
    const reply = await egressFetch(
      `https://localhost:${badTls}/s`,
      {},
      { ca: readFileSync(TEST_CA) },
    );
    expect(await reply.text()).toBe(`GET localhost:${badTls} /s `);
  });

  it('reaches it through the egress proxy, which is asked for it on its port', async () => {
    const proxy = new EgressProxy({ hosts: { 'api.example': '127.0.0.1' } });
    useEgress({ proxy: await proxy.start(), noProxy: [] });
    try {
      const reply = await egressFetch(`http://api.example:${bad}/p`);
      expect(await reply.text()).toBe(`GET api.example:${bad} /p `);
      expect(proxy.targets).toEqual([`GET http://api.example:${bad}/p`]);
    } finally {
      useEgress({ proxy: '', noProxy: [] });
      await proxy.stop();
    }
  });
});
