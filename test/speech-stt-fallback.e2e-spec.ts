import { sseText } from './support/fake-llm.js';
import { samples } from './support/prometheus.js';
import { FakeSpeech, useVoiceRig } from './support/speech-server.js';
import { voiceSession } from './support/ws-client.js';

/**
 * STT_FALLBACK_BASE_URL: an utterance the speech-to-text server fails goes to a second server
 * (its own key and model), so that the caller is heard rather than asked to say it again; the
 * first server is left alone for a while after it failed.
 */
describe('a second speech-to-text server (STT_FALLBACK_BASE_URL)', () => {
  const fallback = new FakeSpeech();
  let fallbackUrl = '';
  beforeAll(async () => {
    fallbackUrl = await fallback.start();
    fallback.transcript = 'Is there a table for two tonight?';
  });
  afterAll(() => fallback.stop());
  const rig = useVoiceRig(() => ({
    STT_API_KEY: 'primary-key',
    STT_FALLBACK_BASE_URL: fallbackUrl,
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
