import { sseText } from './support/fake-llm.js';
import { useVoiceRig } from './support/speech-server.js';
import { voiceSession, type WsClient } from './support/ws-client.js';

/** An utterance sent whole (push-to-talk), and the messages from it on. */
function say(ws: WsClient): number {
  const from = ws.messages.length;
  ws.socket.send(Buffer.alloc(3200, 1), { binary: true });
  ws.send({ type: 'audio_end' });
  return from;
}

/**
 * A speech server restarting or overloaded (SPEECH_RETRIES): the caller's words are transcribed,
 * and the answer said, once it is back, rather than lost.
 */
describe.each([
  ['2', true],
  ['0', false],
])('speech servers that fail once, with SPEECH_RETRIES=%s', (retries, kept) => {
  const rig = useVoiceRig({ SPEECH_RETRIES: retries });
  const { llm, speech } = rig;
  afterEach(() => speech.respondAsSpeech());

  /** The server's first transcription is answered 503, its first synthesis a dropped connection. */
  function failingOnce(): void {
    const failed = new Set<string>();
    speech.respond((req, res) => {
      if (!failed.has(req.path)) {
        failed.add(req.path);
        if (req.path === '/audio/speech') return void res.destroy();
        return void res.writeHead(503, { 'Retry-After': '0' }).end('loading the model');
      }
      if (req.path === '/audio/transcriptions')
        return void res.end(JSON.stringify({ text: speech.transcript }));
      res.writeHead(200, { 'Content-Type': 'audio/pcm' }).end(Buffer.alloc(4800, 7));
    });
  }
  const asked = (path: string) => speech.requests.filter((r) => r.path === path).length;

  it(kept ? "transcribes the caller's words and says the answer" : 'fails at once', async () => {
    failingOnce();
    const ws = await voiceSession(rig.engine.wsUrl);
    llm.enqueue(sseText(['Sunny.']));
    const from = say(ws);
    if (!kept) {
      const error = await ws.waitFor((m) => m.type === 'error', from);
      expect(error).toEqual({
        type: 'error',
        code: 'stt_failed',
        message: 'speech-to-text server answered HTTP 503: loading the model',
      });
      expect(asked('/audio/transcriptions')).toBe(1);
      ws.close();
      return;
    }
    await ws.waitFor((m) => m.type === 'audio_end', from, 10_000);
    const got = ws.messages.slice(from);
    expect(got.find((m) => m.type === 'transcript')).toEqual({
      type: 'transcript',
      text: speech.transcript,
    });
    expect(got.filter((m) => m.type === 'error')).toEqual([]);
    expect(got.filter((m) => m.type === 'audio').length).toBeGreaterThan(0);
    expect(asked('/audio/transcriptions')).toBe(2);
    expect(asked('/audio/speech')).toBe(2);
    ws.close();
  });
});
