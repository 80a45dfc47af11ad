import { sseText } from './support/fake-llm.js';
import { samples } from './support/prometheus.js';
import { useVoiceRig } from './support/speech-server.js';
import { voiceSession } from './support/ws-client.js';

/**
 * TTS_FALLBACK=espeak: a sentence the TTS server fails is said by the bundled eSpeak NG, at the
 * server's rate, so that a caller hears a plainer voice rather than silence; the server is left
 * alone for a while, then tried again.
 */
describe('speech when the TTS server fails (TTS_FALLBACK=espeak)', () => {
  const rig = useVoiceRig({ TTS_FALLBACK: 'espeak', SPEECH_RETRIES: '0', TTS_CACHE_MB: '0' });

  it('says the answer with eSpeak, with no tts_failed, and leaves the server alone a while', async () => {
    rig.speech.respond((req, res) => void res.writeHead(503).end('overloaded'));
    try {
      const ws = await voiceSession(rig.engine.wsUrl);
      const format = ws.messages.at(-1)!.audio_format;
      rig.llm.enqueue(sseText(['Your table ', 'is booked.']), sseText(['See you at eight.']));
      for (const [text, answer] of [
        ['Book a table.', 'Your table is booked.'],
        ['Thanks.', 'See you at eight.'],
      ]) {
        const from = ws.messages.length;
        ws.send({ type: 'user_text', text });
        await ws.waitFor((m) => m.type === 'audio_end', from, 15_000);
        const events = ws.messages.slice(from);
        // (After the end of what was heard of the answer before, cut by this turn.)
        expect(events.find((m) => m.type === 'assistant_end' && !m.heard)).toEqual({
          type: 'assistant_end',
          text: answer,
        });
        expect(events.filter((m) => m.type === 'error')).toEqual([]);
        const audio = events.filter((m) => m.type === 'audio');
        const bytes = audio.reduce((n, m) => n + Buffer.from(m.data, 'base64').length, 0);
        // Speech, at the rate the session was told (the server's 24 kHz, not eSpeak's 22 050 Hz).
        expect(audio[0]).toMatchObject({ format: 'pcm_s16le', sample_rate: format.sample_rate });
        expect(bytes / 2 / format.sample_rate).toBeGreaterThan(0.5);
      }
      // Asked once: the second answer went to eSpeak at once.
      expect(rig.speech.requests.filter((r) => r.path === '/audio/speech')).toHaveLength(1);
      const metrics = samples(await (await fetch(`${rig.engine.httpUrl}/metrics`)).text());
      expect(metrics.get('agent_engine_tts_fallback_sentences_total')).toBe(2);
      ws.close();
    } finally {
      rig.speech.respondAsSpeech();
    }
  });
});
