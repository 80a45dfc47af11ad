import { copyFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runBuiltEngine, useBuiltEngines } from './support/built-engine.js';
import { openAiSpeech } from './support/engine.js';
import { FakeLlm, sseText } from './support/fake-llm.js';
import { FakeSpeech } from './support/speech-server.js';
import { TEST_CA, testTls } from './support/tls.js';
import { voiceSession, type WsClient } from './support/ws-client.js';

const TLS_DIR = resolve('test/fixtures/tls');

/** A copy of a certificate and key of the test fixtures, as a mounted Secret's files. */
function pair(cert: string, key: string): { cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), 'engine-speech-mtls-'));
  copyFileSync(join(TLS_DIR, cert), join(dir, 'tls.crt'));
  copyFileSync(join(TLS_DIR, key), join(dir, 'tls.key'));
  return { cert: join(dir, 'tls.crt'), key: join(dir, 'tls.key') };
}

/** One utterance heard and answered aloud: the transcription, then the answer said. */
async function spokenTurn(llm: FakeLlm, ws: WsClient) {
  llm.enqueue(sseText(['Sunny all day.']));
  const from = ws.messages.length;
  ws.socket.send(Buffer.alloc(3200, 1), { binary: true });
  ws.send({ type: 'audio_end' });
  const end = await ws.waitFor((m) => m.type === 'assistant_end', from, 15_000);
  // The answer is said once its text is whole: its audio ends after the turn.
  await ws.waitFor((m) => m.type === 'audio_end', from, 15_000);
  return { end, messages: ws.messages.slice(from) };
}

/**
 * SPEECH_CLIENT_CERT_FILE and SPEECH_CLIENT_KEY_FILE: speech servers that take only clients with
 * a certificate of their CA (behind a gateway or a service mesh's edge checking its callers) are
 * shown the engine's for every transcription and synthesis, and a renewed one from its files.
 */
describe('speech servers that ask for a client certificate (mutual TLS)', () => {
  const llm = new FakeLlm();
  const speech = new FakeSpeech({
    ...testTls(),
    ca: readFileSync(join(TLS_DIR, 'client-ca.pem')),
    requestCert: true,
    rejectUnauthorized: true,
  });
  const startEngine = useBuiltEngines();
  let speechUrl = '';
  let llmUrl = '';
  beforeAll(async () => {
    [speechUrl, llmUrl] = await Promise.all([speech.start(), llm.start()]);
  });
  beforeEach(() => {
    llm.reset();
    speech.requests.length = 0;
  });
  afterAll(async () => {
    await Promise.all([llm.stop(), speech.stop()]);
  });
  const start = async (env: Record<string, string>) => {
    const engine = await startEngine({
      LLM_BASE_URL: llmUrl,
      LLM_MODEL: 'm',
      NODE_EXTRA_CA_CERTS: TEST_CA,
      ...openAiSpeech(speechUrl),
      ...env,
    });
    return { engine, ws: await voiceSession(engine.wsUrl) };
  };

  it('shows it to the speech-to-text and TTS servers; without it they refuse', async () => {
    const { cert, key } = pair('client.pem', 'client.key');
    const { ws } = await start({ SPEECH_CLIENT_CERT_FILE: cert, SPEECH_CLIENT_KEY_FILE: key });
    const { end, messages } = await spokenTurn(llm, ws);
    expect(messages).toContainEqual(
      expect.objectContaining({ type: 'transcript', text: speech.transcript }),
    );
    expect(end).toMatchObject({ type: 'assistant_end', text: 'Sunny all day.' });
    expect(speech.inputs()).toEqual(['Sunny all day.']);
    expect(speech.requests.map((r) => `${r.path} ${r.clientCertificate}`)).toEqual([
      '/audio/transcriptions voice-agent',
      '/audio/speech voice-agent',
    ]);
    ws.close();

    const without = await start({});
    const from = without.ws.messages.length;
    without.ws.socket.send(Buffer.alloc(3200, 1), { binary: true });
    without.ws.send({ type: 'audio_end' });
    const error = await without.ws.waitFor((m) => m.type === 'error', from, 15_000);
    expect(error.message).toMatch(/speech-to-text server/);
    expect(speech.requests.filter((r) => r.clientCertificate)).toHaveLength(2);
    without.ws.close();
  }, 40_000);

  it('shows it to the speech server only, not to another host a redirect leads to', async () => {
    // The synthesis moved to another host (a CDN's, a new cluster's), which asks for none.
    const moved = new FakeSpeech({ ...testTls(), requestCert: true, rejectUnauthorized: false });
    const movedUrl = (await moved.start()).replace('127.0.0.1', 'localhost');
    speech.respond((req, res) => {
      if (req.path === '/audio/transcriptions')
        return void res.end(JSON.stringify({ text: speech.transcript }));
      res.writeHead(307, { location: `${movedUrl}/audio/speech` }).end();
    });
    try {
      const { cert, key } = pair('client.pem', 'client.key');
      const { ws } = await start({ SPEECH_CLIENT_CERT_FILE: cert, SPEECH_CLIENT_KEY_FILE: key });
      await spokenTurn(llm, ws);
      expect(moved.inputs()).toEqual(['Sunny all day.']);
      expect(moved.requests.map((r) => r.clientCertificate)).toEqual([undefined]);
      expect(speech.requests.map((r) => `${r.path} ${r.clientCertificate}`)).toEqual([
        '/audio/transcriptions voice-agent',
        '/audio/speech voice-agent',
      ]);
      ws.close();
    } finally {
      speech.respondAsSpeech();
      await moved.stop();
    }
  }, 40_000);

  it('warns of an expired one at start-up, and shows a renewed one from its files', async () => {
    const { cert, key } = pair('expired.pem', 'expired.key');
    const { engine, ws } = await start({
      SPEECH_CLIENT_CERT_FILE: cert,
      SPEECH_CLIENT_KEY_FILE: key,
      SECRET_FILES_WATCH_SECS: '1',
    });
    expect(engine.output).toContain(
      `SPEECH_CLIENT_CERT_FILE: the client certificate ${cert} expired on Jan  2 00:00:00 2020 GMT`,
    );
    const from = ws.messages.length;
    ws.socket.send(Buffer.alloc(3200, 1), { binary: true });
    ws.send({ type: 'audio_end' });
    await ws.waitFor((m) => m.type === 'error', from, 15_000);
    // The certificate first (no pair with the old key: the pair in use is kept), then its key.
    copyFileSync(join(TLS_DIR, 'client.pem'), cert);
    await new Promise((done) => setTimeout(done, 1500));
    expect(engine.output).toContain('SPEECH_CLIENT_KEY_FILE is not the key of the certificate');
    copyFileSync(join(TLS_DIR, 'client.key'), key);
    await new Promise((done) => setTimeout(done, 1500));
    expect(engine.output).toContain(
      'SPEECH_CLIENT_CERT_FILE changed in its files: shown from the next connection on',
    );
    const { end } = await spokenTurn(llm, ws);
    expect(end).toMatchObject({ type: 'assistant_end', text: 'Sunny all day.' });
    expect(speech.requests.map((r) => `${r.path} ${r.clientCertificate}`)).toEqual([
      '/audio/transcriptions voice-agent',
      '/audio/speech voice-agent',
    ]);
    ws.close();
  }, 40_000);

  it.each([
    [
      { SPEECH_CLIENT_KEY_FILE: 'client.key' },
      'SPEECH_CLIENT_CERT_FILE is not set: SPEECH_CLIENT_CERT_FILE and SPEECH_CLIENT_KEY_FILE go together (the certificate shown to the speech servers, and its key)',
    ],
    [
      { SPEECH_CLIENT_CERT_FILE: 'client.pem', SPEECH_CLIENT_KEY_FILE: 'client-encrypted.key' },
      'SPEECH_CLIENT_KEY_FILE is encrypted, and no SPEECH_CLIENT_KEY_PASSPHRASE is given',
    ],
  ])(
    'stops start-up on %j, naming the variable',
    async (files, message) => {
      const env = Object.fromEntries(Object.entries(files).map(([k, f]) => [k, join(TLS_DIR, f)]));
      const run = await runBuiltEngine({ LLM_BASE_URL: llmUrl, ...env });
      expect(run.code).toBe(1);
      expect(run.output).toContain(message);
    },
    30_000,
  );
});
