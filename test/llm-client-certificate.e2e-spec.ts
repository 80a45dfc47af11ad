import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runBuiltEngine, useBuiltEngines } from './support/built-engine.js';
import { EgressProxy } from './support/egress-proxy.js';
import { FakeLlm, sseText } from './support/fake-llm.js';
import { TEST_CA, testTls } from './support/tls.js';
import { WsClient } from './support/ws-client.js';

const TLS_DIR = resolve('test/fixtures/tls');

/** Copies of the test certificates in a directory of their own (a mounted Secret, say). */
function certificates(): string {
  const dir = mkdtempSync(join(tmpdir(), 'engine-llm-mtls-'));
  for (const file of [
    'client.pem',
    'client.key',
    'client-encrypted.key',
    'expired.pem',
    'expired.key',
  ])
    copyFileSync(join(TLS_DIR, file), join(dir, file));
  return dir;
}

/**
 * LLM_CLIENT_CERT_FILE and LLM_CLIENT_KEY_FILE: an LLM server that takes only clients with a
 * certificate of its CA (vLLM with `--ssl-cert-reqs 2`, a gateway) is shown the engine's, for its
 * completions and its model list, directly or through the egress proxy, and a renewed one from
 * the files; a bad pair stops start-up naming the variable.
 */
describe('an LLM server that asks for a client certificate (mutual TLS)', () => {
  const llm = new FakeLlm({
    ...testTls(),
    ca: readFileSync(join(TLS_DIR, 'client-ca.pem')),
    requestCert: true,
    rejectUnauthorized: true,
  });
  const proxy = new EgressProxy();
  const startEngine = useBuiltEngines();
  let llmUrl = '';
  beforeAll(async () => {
    llmUrl = await llm.start();
  });
  beforeEach(() => {
    llm.reset();
    llm.clientCertificates.length = 0;
  });
  afterAll(async () => {
    await llm.stop();
    await proxy.stop();
  });
  const start = async (env: Record<string, string>) => {
    const engine = await startEngine({
      LLM_BASE_URL: llmUrl,
      NODE_EXTRA_CA_CERTS: TEST_CA,
      ...env,
    });
    return { engine, ws: await WsClient.connect(engine.wsUrl) };
  };

  it('shows it for the model list and the completions; without it the server refuses', async () => {
    const dir = certificates();
    const { ws } = await start({
      LLM_CLIENT_CERT_FILE: join(dir, 'client.pem'),
      LLM_CLIENT_KEY_FILE: join(dir, 'client.key'),
    });
    llm.enqueue(sseText(['Sunny.']));
    expect((await ws.turn('Weather?')).at(-1)).toEqual({ type: 'assistant_end', text: 'Sunny.' });
    expect(llm.clientCertificates).toEqual([
      'GET /v1/models voice-agent',
      'POST /v1/chat/completions voice-agent',
    ]);
    ws.close();

    const without = await start({ LLM_MODEL: 'm', LLM_RETRIES: '0' });
    const turn = await without.ws.turn('Weather?', 15_000);
    expect(turn.find((m) => m.type === 'error')).toMatchObject({ code: 'llm_failed' });
    expect(llm.requests).toHaveLength(1);
    without.ws.close();
  }, 40_000);

  it('decrypts its key with LLM_CLIENT_KEY_PASSPHRASE (a secret file), through the egress proxy', async () => {
    const dir = certificates();
    const passphrase = join(dir, 'passphrase');
    writeFileSync(passphrase, 's3cret-pass\n');
    const proxyUrl = await proxy.start();
    const { ws } = await start({
      LLM_CLIENT_CERT_FILE: join(dir, 'client.pem'),
      LLM_CLIENT_KEY_FILE: join(dir, 'client-encrypted.key'),
      LLM_CLIENT_KEY_PASSPHRASE_FILE: passphrase,
      EGRESS_PROXY: proxyUrl,
      EGRESS_NO_PROXY: 'example.invalid', // the LLM server on loopback through the proxy too
    });
    llm.enqueue(sseText(['Sunny.']));
    expect((await ws.turn('Weather?')).at(-1)).toEqual({ type: 'assistant_end', text: 'Sunny.' });
    expect(llm.clientCertificates).toEqual([
      'GET /v1/models voice-agent',
      'POST /v1/chat/completions voice-agent',
    ]);
    expect(proxy.targets).toContain(`CONNECT 127.0.0.1:${new URL(llmUrl).port}`);
    ws.close();
  }, 40_000);

  it('shows a renewed certificate from its files (SECRET_FILES_WATCH_SECS)', async () => {
    const dir = certificates();
    const cert = join(dir, 'agent.pem');
    const key = join(dir, 'agent.key');
    // An expired certificate of another CA, which the server refuses: a warning at start-up.
    copyFileSync(join(dir, 'expired.pem'), cert);
    copyFileSync(join(dir, 'expired.key'), key);
    const { engine, ws } = await start({
      LLM_MODEL: 'm',
      LLM_RETRIES: '0',
      LLM_CLIENT_CERT_FILE: cert,
      LLM_CLIENT_KEY_FILE: key,
      SECRET_FILES_WATCH_SECS: '1',
    });
    expect(engine.output).toContain(
      `LLM_CLIENT_CERT_FILE: the client certificate ${cert} expired on Jan  2 00:00:00 2020 GMT`,
    );
    const refused = await ws.turn('Weather?', 15_000);
    expect(refused.find((m) => m.type === 'error')).toMatchObject({ code: 'llm_failed' });
    // Renewed: the certificate first (no pair with the old key: the pair in use is kept), then its key.
    copyFileSync(join(dir, 'client.pem'), cert);
    await new Promise((done) => setTimeout(done, 1500));
    copyFileSync(join(dir, 'client.key'), key);
    await new Promise((done) => setTimeout(done, 1500));
    expect(engine.output).toContain(
      'LLM_CLIENT_CERT_FILE changed in its files: shown from the next connection on',
    );
    llm.enqueue(sseText(['Sunny.']));
    expect((await ws.turn('Weather?')).at(-1)).toEqual({ type: 'assistant_end', text: 'Sunny.' });
    expect(llm.clientCertificates.at(-1)).toBe('POST /v1/chat/completions voice-agent');
    ws.close();
  }, 40_000);

  it.each([
    [
      { LLM_CLIENT_CERT_FILE: 'client.pem' },
      'LLM_CLIENT_KEY_FILE is not set: LLM_CLIENT_CERT_FILE and LLM_CLIENT_KEY_FILE go together',
    ],
    [
      { LLM_CLIENT_CERT_FILE: 'client.pem', LLM_CLIENT_KEY_FILE: 'expired.key' },
      'LLM_CLIENT_KEY_FILE is not the key of the certificate',
    ],
    [
      { LLM_CLIENT_CERT_FILE: 'client.pem', LLM_CLIENT_KEY_FILE: 'client-encrypted.key' },
      'LLM_CLIENT_KEY_FILE is encrypted, and no LLM_CLIENT_KEY_PASSPHRASE is given',
    ],
    [
      { LLM_CLIENT_CERT_FILE: 'client.key', LLM_CLIENT_KEY_FILE: 'client.key' },
      'LLM_CLIENT_CERT_FILE is no PEM certificate',
    ],
    [
      { LLM_CLIENT_CERT_FILE: 'missing.pem', LLM_CLIENT_KEY_FILE: 'client.key' },
      'LLM_CLIENT_CERT_FILE cannot be read',
    ],
  ])(
    'stops start-up on %j, naming the variable',
    async (files, message) => {
      const dir = certificates();
      const env = Object.fromEntries(Object.entries(files).map(([k, f]) => [k, join(dir, f)]));
      const run = await runBuiltEngine({ LLM_BASE_URL: llmUrl, ...env });
      expect(run.code).toBe(1);
      expect(run.output).toContain(message);
    },
    30_000,
  );
});
