import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { useBuiltEngines } from './support/built-engine.js';
import { startError } from './support/engine.js';
import { EgressProxy } from './support/egress-proxy.js';
import { FakeLlm, sseStructuredCalls, sseText } from './support/fake-llm.js';
import { TEST_CA, testTls } from './support/tls.js';
import { WsClient } from './support/ws-client.js';

const TLS_DIR = resolve('test/fixtures/tls');

/** The common name of the client certificate a request came with, or `no certificate`. */
const shownBy = (req: IncomingMessage) =>
  String((req.socket as TLSSocket).getPeerCertificate().subject?.CN ?? 'no certificate');

/**
 * An API that takes only clients with a certificate of the client CA: it answers with their CN;
 * `/moved` redirects to `elsewhere()` (another host).
 */
function mutualTlsApi(elsewhere: () => string): Server {
  return createServer(
    {
      ...testTls(),
      ca: readFileSync(join(TLS_DIR, 'client-ca.pem')),
      requestCert: true,
      rejectUnauthorized: true,
    },
    (req, res) => {
      if (req.url === '/moved') return void res.writeHead(302, { location: elsewhere() }).end();
      res.end(`${req.url?.slice(1)}: sunny, for ${shownBy(req)}`);
    },
  );
}

/** A server of another host that asks for a certificate, takes none too, and says what it got. */
const elsewhereServer = () =>
  createServer({ ...testTls(), requestCert: true, rejectUnauthorized: false }, (req, res) =>
    res.end(`elsewhere: ${shownBy(req)}`),
  );

/** The tools file (in a directory of its own, beside copies of the client's files). */
function toolsWith(base: string, keyFile = 'client.key', passphrase?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'engine-mtls-'));
  for (const file of ['client.pem', 'client.key', 'client-encrypted.key', 'server.key', 'ca.pem'])
    copyFileSync(join(TLS_DIR, file), join(dir, file));
  const path = join(dir, 'tools.json');
  const tool = (name: string, certificate?: object) => ({
    name,
    parameters: { type: 'object', properties: { city: { type: 'string' } } },
    url: `${base}/{city}`,
    method: 'GET',
    ...(certificate && { client_certificate: certificate }),
  });
  writeFileSync(
    path,
    JSON.stringify([
      tool('weather', {
        cert_file: 'client.pem',
        key_file: keyFile,
        ...(passphrase && { passphrase }),
      }),
      tool('weather_without'),
    ]),
  );
  return path;
}

/**
 * `client_certificate`: a tool whose API asks for a client certificate (mutual TLS) shows the
 * one it names, directly or through the egress proxy's tunnel; a tool without one is refused by
 * such an API, and a key that is not the certificate's stops start-up.
 */
describe('HTTP tools with a client certificate', () => {
  const llm = new FakeLlm();
  const elsewhere = elsewhereServer();
  let elsewhereUrl = '';
  const api = mutualTlsApi(() => elsewhereUrl);
  const proxy = new EgressProxy();
  const startEngine = useBuiltEngines();
  let base = '';
  let llmUrl = '';
  beforeAll(async () => {
    llmUrl = await llm.start();
    await new Promise<void>((done) => api.listen(0, '127.0.0.1', done));
    base = `https://localhost:${(api.address() as AddressInfo).port}`;
    await new Promise<void>((done) => elsewhere.listen(0, '127.0.0.1', done));
    elsewhereUrl = `https://127.0.0.1:${(elsewhere.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    await llm.stop();
    await proxy.stop();
    for (const server of [api, elsewhere]) {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    }
  });
  const start = async (env: Record<string, string>) => {
    const engine = await startEngine({
      LLM_BASE_URL: llmUrl,
      LLM_MODEL: 'm',
      NODE_EXTRA_CA_CERTS: TEST_CA,
      ...env,
    });
    return WsClient.connect(engine.wsUrl);
  };
  /** Both tools called, the one with a certificate for `city`: what each read. */
  const both = async (ws: WsClient, city = 'Oslo') => {
    llm.enqueue(
      sseStructuredCalls([
        { id: 'call_1', name: 'weather', arguments: { city } },
        { id: 'call_2', name: 'weather_without', arguments: { city: 'Rome' } },
      ]),
      sseText(['Done.']),
    );
    await ws.turn('weather?');
    return llm.requests
      .at(-1)!
      .body.messages.filter((m: any) => m.role === 'tool')
      .slice(-2)
      .map((m: any) => m.content);
  };

  it('shows the certificate to the API that asks for it; a tool without one is refused', async () => {
    const ws = await start({ LLM_TOOLS_FILE: toolsWith(base) });
    const [shown, refused] = await both(ws);
    expect(shown).toBe('Oslo: sunny, for voice-agent');
    expect(refused).toMatch(/^Error: tool request failed: /);
    // Redirected to another host, the request goes on without it.
    expect((await both(ws, 'moved'))[0]).toBe('elsewhere: no certificate');
    ws.close();
  }, 30_000);

  it('decrypts a key with its passphrase from a secret, and shows it through the egress proxy', async () => {
    const proxyUrl = await proxy.start();
    const ws = await start({
      LLM_TOOLS_FILE: toolsWith(base, 'client-encrypted.key', '${TOOL_SECRET_KEY_PASS}'),
      TOOL_SECRET_KEY_PASS: 's3cret-pass',
      EGRESS_PROXY: proxyUrl,
      // The LLM server (127.0.0.1) directly, the API (localhost) through the proxy.
      EGRESS_NO_PROXY: '127.0.0.1',
    });
    const [shown] = await both(ws);
    expect(shown).toBe('Oslo: sunny, for voice-agent');
    expect(proxy.targets).toContain(`CONNECT localhost:${new URL(base).port}`);
    expect((await both(ws, 'moved'))[0]).toBe('elsewhere: no certificate');
    ws.close();
  }, 30_000);

  it.each([
    [
      "a key that is not the certificate's",
      'server.key',
      undefined,
      "field 'client_certificate.key_file' is not the key of the certificate",
    ],
    [
      'a file that is no key',
      'ca.pem',
      undefined,
      "field 'client_certificate.key_file' is no PEM private key",
    ],
    [
      'an encrypted key without its passphrase',
      'client-encrypted.key',
      undefined,
      "field 'client_certificate.key_file' is encrypted, and no 'passphrase' is given",
    ],
    [
      'a wrong passphrase',
      'client-encrypted.key',
      'wrong',
      "field 'client_certificate.key_file' is encrypted, and the 'passphrase' does not decrypt it",
    ],
    [
      'a missing file',
      'missing.key',
      undefined,
      "field 'client_certificate.key_file' cannot be read",
    ],
  ])(
    'stops start-up on %s, naming the tool and the field',
    async (_case, keyFile, passphrase, message) => {
      const path = toolsWith(base, keyFile, passphrase);
      expect(await startError({ LLM_TOOLS_FILE: path })).toContain(
        `${path}: tool #0 'weather': ${message}`,
      );
    },
  );
});
