import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { REFUSED_ORIGIN } from './support/refused.js';
import type { AddressInfo } from 'node:net';
import { Engine } from './support/engine.js';
import { FakeLlm, sseText } from './support/fake-llm.js';
import { serverFor, testTls } from './support/tls.js';
import { voiceSession, type WsClient } from './support/ws-client.js';

/**
 * A server that answers without end, as fast as it is read: a transcription that never closes
 * (200), an error page that never ends (503, for speech).
 */
function flood(req: IncomingMessage, res: ServerResponse) {
  const transcription = req.url?.includes('transcriptions');
  res.writeHead(transcription ? 200 : 503, {
    'Content-Type': transcription ? 'application/json' : 'text/plain',
  });
  if (transcription) res.write('{"text": "');
  const chunk = Buffer.alloc(16 * 1024, 'z');
  const pump = () => {
    while (!res.destroyed && res.write(chunk));
  };
  res.on('drain', pump);
  pump();
}

/**
 * One utterance sent, and the error it gets; then the words said for it (SPEECH_UNCLEAR_PHRASE,
 * which the TTS server fails too) are over.
 */
async function utterance(ws: WsClient) {
  ws.socket.send(Buffer.alloc(3200, 1), { binary: true });
  const from = ws.messages.length;
  ws.send({ type: 'audio_end' });
  const error = await ws.waitFor((m) => m.type === 'error', from);
  const said = await ws.waitFor((m) => m.type === 'assistant_end' && !m.interrupted, from);
  expect(said.text).toBe("Sorry, I didn't catch that.");
  await ws.waitFor((m) => m.type === 'audio_end', ws.messages.indexOf(said));
  return error;
}

/** A turn answered "Hello there." whose speech fails: the error it gets, and where its messages begin. */
async function unspokenTurn(llm: FakeLlm, ws: WsClient) {
  llm.enqueue(sseText(['Hello there.']));
  const from = ws.messages.length;
  ws.send({ type: 'user_text', text: 'hi' });
  return { error: await ws.waitFor((m) => m.type === 'error', from), from };
}

/** A speech server that is down, or that takes the request and never answers: the error says which. */
describe.each([
  [
    'cannot be reached',
    'down',
    'cannot reach the speech-to-text server (ECONNREFUSED)',
    'cannot reach the TTS server (ECONNREFUSED)',
  ],
  [
    'does not answer',
    'silent',
    'the speech-to-text server did not answer within STT_TIMEOUT_SECS (0.3s)',
    'the TTS server did not answer within TTS_TIMEOUT_SECS (0.3s)',
  ],
  [
    'have a certificate a private CA signed (the engine not told of the CA)',
    'untrusted',
    'the TLS certificate of the speech-to-text server is not trusted (UNABLE_TO_VERIFY_LEAF_SIGNATURE)',
    'the TLS certificate of the TTS server is not trusted (UNABLE_TO_VERIFY_LEAF_SIGNATURE)',
  ],
  // A URL that leads somewhere else (a file server, a broken proxy): the engine reads 1 MiB of a
  // transcription, 64 KiB of an error page, not all it would send until the timeout.
  [
    'send without end',
    'flood',
    'the speech-to-text server answered more than 1 MiB: no transcription is that long',
    `TTS server answered HTTP 503: ${'z'.repeat(300)}`,
  ],
])('speech servers that %s', (_, kind, sttError, ttsError) => {
  const llm = new FakeLlm();
  const silent: Server =
    kind === 'untrusted'
      ? serverFor((_req, res) => res.end(), testTls())
      : kind === 'flood'
        ? createServer(flood)
        : createServer(() => undefined);
  let engine: Engine;
  beforeAll(async () => {
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as AddressInfo).port;
    const base =
      kind === 'down'
        ? REFUSED_ORIGIN
        : `${kind === 'untrusted' ? 'https' : 'http'}://127.0.0.1:${port}`;
    engine = await Engine.start({
      LLM_BASE_URL: await llm.start(),
      LLM_MODEL: 'm',
      TTS_PROVIDER: 'openai',
      TTS_BASE_URL: base,
      STT_BASE_URL: base,
      // A flood is cut by its size, well before a timeout a loaded machine could reach.
      ...(kind === 'flood'
        ? { TTS_TIMEOUT_SECS: '20', STT_TIMEOUT_SECS: '20' }
        : { TTS_TIMEOUT_SECS: '0.3', STT_TIMEOUT_SECS: '0.3' }),
    });
  });
  afterAll(async () => {
    await engine?.stop();
    await llm.stop();
    silent.closeAllConnections();
    await new Promise((r) => silent.close(r));
  });

  it('says so, without the server address, and the session lives on', async () => {
    const ws = await voiceSession(engine.wsUrl);
    expect(await utterance(ws)).toEqual({ type: 'error', code: 'stt_failed', message: sttError });
    const { error, from } = await unspokenTurn(llm, ws);
    expect(error).toEqual({
      type: 'error',
      code: 'tts_failed',
      message: `speech synthesis failed: ${ttsError}`,
    });
    expect(await ws.waitFor((m) => m.type === 'assistant_end', from)).toMatchObject({
      text: 'Hello there.',
    });
    ws.close();
  });
});

/** A TTS server that answers 200 with something else than the raw PCM asked for: never played. */
describe.each([
  [
    'MP3 (a server that ignores response_format)',
    'audio/mpeg',
    Buffer.from('ID3\u0004'.repeat(400)),
    '',
  ],
  [
    "a proxy's page",
    'text/html; charset=utf-8',
    Buffer.from('<html>\n<body>Sign in to continue</body>\n</html>'),
    ': <html> <body>Sign in to continue</body> </html>',
  ],
])('a TTS server that answers %s', (_, type, body, quoted) => {
  const llm = new FakeLlm();
  const tts = createServer((_req, res) => res.writeHead(200, { 'Content-Type': type }).end(body));
  let engine: Engine;
  beforeAll(async () => {
    await new Promise<void>((r) => tts.listen(0, '127.0.0.1', r));
    engine = await Engine.start({
      LLM_BASE_URL: await llm.start(),
      LLM_MODEL: 'm',
      TTS_PROVIDER: 'openai',
      TTS_BASE_URL: `http://127.0.0.1:${(tts.address() as AddressInfo).port}`,
    });
  });
  afterAll(async () => {
    await engine?.stop();
    await llm.stop();
    await new Promise((r) => tts.close(r));
  });

  it('is refused, saying what it sent; no audio reaches the client, the text does', async () => {
    const ws = await voiceSession(engine.wsUrl);
    const { error, from } = await unspokenTurn(llm, ws);
    expect(error).toEqual({
      type: 'error',
      code: 'tts_failed',
      message: `speech synthesis failed: the TTS server answered ${type.split(';')[0]}, not raw PCM (response_format "pcm")${quoted}`,
    });
    await ws.waitFor((m) => m.type === 'audio_end', from);
    expect(ws.messages.slice(from).filter((m) => m.type === 'audio')).toEqual([]);
    expect(ws.messages.slice(from).find((m) => m.type === 'assistant_end')).toMatchObject({
      text: 'Hello there.',
    });
    ws.close();
  });
});
