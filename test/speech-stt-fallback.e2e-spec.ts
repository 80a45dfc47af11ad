import { sseText } from './support/fake-llm.js';
import { samples } from './support/prometheus.js';
import { FakeSpeech, useVoiceRig } from './support/speech-server.js';
import { voiceSession } from './support/ws-client.js';

/** Starts `fallback`, hearing a question, for the block; its URL once started. */
function useSecondServer(fallback: FakeSpeech): () => string {
  let url = '';
  beforeAll(async () => {
    url = await fallback.start();
    fallback.transcript = 'Is there a table for two tonight?';
  });
  afterAll(() => fallback.stop());
  return () => url;
}

/**
 * STT_FALLBACK_BASE_URL: an utterance the speech-to-text server fails goes to a second server
 * (its own key and model), so that the caller is heard rather than asked to say it again; the
 * first server is left alone for a while after it failed.
 */
describe('a second speech-to-text server (STT_FALLBACK_BASE_URL)', () => {
  const fallback = new FakeSpeech();
  const fallbackUrl = useSecondServer(fallback);
  const rig = useVoiceRig(() => ({
    STT_API_KEY: 'primary-key',
    STT_FALLBACK_BASE_URL: fallbackUrl(),
    STT_FALLBACK_API_KEY: 'fallback-key',
    STT_FALLBACK_MODEL: 'whisper-large-v3',
    SPEECH_RETRIES: '0',
  }));

  it("hears an utterance the server failed through the fallback, with the fallback's key and model", async () => {
    rig.speech.respond((req, res) => {
      if (req.path === '/audio/transcriptions') return void res.writeHead(503).end('overloaded');
      res.writeHead(200, { 'Content-Type': 'audio/pcm' }).end(Buffer.alloc(4800, 7));
    });
    try {
      const ws = await voiceSession(rig.engine.wsUrl);
      rig.llm.enqueue(sseText(['Yes, at eight.']), sseText(['Booked.']));
      for (const answer of ['Yes, at eight.', 'Booked.']) {
        const from = ws.messages.length;
        ws.socket.send(Buffer.alloc(3200, 1), { binary: true });
        ws.send({ type: 'audio_end' });
        const end = await ws.waitFor((m) => m.type === 'assistant_end' && !m.heard, from);
        expect(end.text).toBe(answer);
        expect(ws.messages.slice(from).filter((m) => m.type === 'error')).toEqual([]);
        expect(ws.messages.slice(from).find((m) => m.type === 'transcript')).toMatchObject({
          text: 'Is there a table for two tonight?',
        });
        await ws.waitFor((m) => m.type === 'audio_end', ws.messages.indexOf(end));
      }
      // The server was asked once (then left alone), with its own key; the fallback twice.
      const asked = (server: FakeSpeech) =>
        server.requests.filter((r) => r.path === '/audio/transcriptions');
      expect(asked(rig.speech).map((r) => r.headers.authorization)).toEqual(['Bearer primary-key']);
      const [first] = asked(fallback);
      expect(asked(fallback)).toHaveLength(2);
      expect(first!.headers.authorization).toBe('Bearer fallback-key');
      expect(first!.body).toContain('whisper-large-v3');
      const metrics = samples(await (await fetch(`${rig.engine.httpUrl}/metrics`)).text());
      expect(metrics.get('agent_engine_stt_fallback_utterances_total')).toBe(2);
      ws.close();
    } finally {
      rig.speech.respondAsSpeech();
    }
  });
});

/**
 * STT_FALLBACK_AFTER_MS: an utterance the server has not transcribed by then goes to the
 * fallback as well; the first transcription is taken. A slow server is not a failed one: the
 * next utterance goes to it again.
 */
describe('the second speech-to-text server asked as well when the first is slow', () => {
  const fallback = new FakeSpeech();
  const fallbackUrl = useSecondServer(fallback);
  const rig = useVoiceRig(() => ({
    STT_FALLBACK_BASE_URL: fallbackUrl(),
    STT_FALLBACK_AFTER_MS: '200',
    SPEECH_RETRIES: '0',
  }));

  it("takes the fallback's transcription when the server's is late, and asks the server again next time", async () => {
    const ws = await voiceSession(rig.engine.wsUrl);
    rig.speech.transcript = 'Late words.';
    rig.speech.delayMs = 1500;
    rig.llm.enqueue(sseText(['Yes, at eight.']), sseText(['Sunny.']));
    const heard = async () => {
      const from = ws.messages.length;
      const sentAt = performance.now();
      ws.socket.send(Buffer.alloc(3200, 1), { binary: true });
      ws.send({ type: 'audio_end' });
      const transcript = await ws.waitFor((m) => m.type === 'transcript', from);
      const waited = performance.now() - sentAt;
      await ws.waitFor((m) => m.type === 'audio_end', from, 10_000);
      return { text: transcript.text, waited };
    };
    const late = await heard();
    expect(late.text).toBe('Is there a table for two tonight?');
    expect(late.waited).toBeLessThan(1500);
    rig.speech.delayMs = 0;
    rig.speech.transcript = 'What is the weather like?';
    expect((await heard()).text).toBe('What is the weather like?');
    const asked = (server: FakeSpeech) =>
      server.requests.filter((r) => r.path === '/audio/transcriptions').length;
    expect([asked(rig.speech), asked(fallback)]).toEqual([2, 1]);
    const metrics = samples(await (await fetch(`${rig.engine.httpUrl}/metrics`)).text());
    expect(metrics.get('agent_engine_stt_fallback_utterances_total')).toBe(1);
    ws.close();
  });
});
