import { readFileSync } from 'node:fs';
import { sseText } from './support/fake-llm.js';
import { useVoiceRig } from './support/speech-server.js';
import { voiceSession, type WsClient } from './support/ws-client.js';
import { samples } from './support/prometheus.js';
import { telephone } from './support/twilio-call.js';

/** A spoken sentence, PCM s16le 16 kHz mono (test/fixtures/audio/make-speech.mjs). */
const SPEECH = readFileSync('test/fixtures/audio/speech-16k.pcm');
const silence = (ms: number) => Buffer.alloc(ms * 32);
/** A quiet line's hiss: low, steady noise. */
function hiss(ms: number): Buffer {
  const audio = Buffer.alloc(ms * 32);
  let seed = 11;
  for (let i = 0; i < audio.length; i += 2) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    audio.writeInt16LE((seed % 401) - 200, i);
  }
  return audio;
}

/** Streams `audio` as a microphone does: 20 ms binary frames, one after another. */
function stream(ws: WsClient, audio: Buffer, frameBytes = 640): void {
  for (let at = 0; at < audio.length; at += frameBytes)
    ws.socket.send(audio.subarray(at, at + frameBytes), { binary: true });
}

/**
 * VAD_SILENCE_MS: a client that streams the microphone without end (a telephony gateway, a
 * browser) lets the engine hear when the caller begins and stops speaking: the utterance is
 * transcribed and answered with no `audio_end`, and only speech barges in, not the line's noise.
 */
describe('voice activity detection (VAD_SILENCE_MS)', () => {
  const rig = useVoiceRig({ VAD_SILENCE_MS: '500' });
  const { llm, speech } = rig;

  /** The audio (PCM bytes, without the WAV header) of each transcription asked for. */
  const transcribed = () =>
    Promise.all(
      speech.requests
        .filter((r) => r.path === '/audio/transcriptions')
        .map(async (r) => {
          const headers = { 'Content-Type': String(r.headers['content-type']) };
          const form = await new Response(r.bytes, { headers }).formData();
          return (form.get('file') as File).size - 44;
        }),
    );

  it('answers an utterance in a stream of audio when the caller stops speaking, with no audio_end', async () => {
    const scrape = async () => samples(await (await fetch(`${rig.engine.httpUrl}/metrics`)).text());
    const before = await scrape();
    const ws = await voiceSession(rig.engine.wsUrl);
    expect(ws.messages.at(-1)!.settings.vad_silence_ms).toBe(500);
    llm.enqueue(sseText(['Sunny.']));
    const from = ws.messages.length;
    stream(ws, Buffer.concat([silence(3000), SPEECH, silence(1000)]));
    const end = await ws.waitFor((m) => m.type === 'assistant_end', from, 10_000);
    expect(end).toMatchObject({ text: 'Sunny.' });
    const said = ws.messages.slice(from).map((m) => m.type);
    expect(said.slice(0, 3)).toEqual(['speech_started', 'speech_stopped', 'transcript']);
    expect(llm.requests[0]!.body.messages.at(-1)).toEqual({
      role: 'user',
      content: 'What is the weather like in Paris today?',
    });
    // The speech, a short lead and the silence that ended it: not the three seconds before.
    const [sent] = await transcribed();
    expect(sent).toBeGreaterThan(SPEECH.length + silence(400).length);
    expect(sent).toBeLessThan(SPEECH.length + silence(1500).length);
    // The caller's wait is timed from when they stopped speaking: the 500 ms of silence count.
    await ws.waitFor((m) => m.type === 'audio', from);
    const after = await scrape();
    const response = 'agent_engine_voice_response_seconds';
    expect(after.get(`${response}_count`)! - (before.get(`${response}_count`) ?? 0)).toBe(1);
    expect(after.get(`${response}_sum`)! - (before.get(`${response}_sum`) ?? 0)).toBeGreaterThan(
      0.5,
    );
    ws.close();
  });

  it("is not interrupted by the line's silence, and is by the caller's speech", async () => {
    speech.seconds = 30; // the agent speaks for long
    const ws = await voiceSession(rig.engine.wsUrl);
    llm.enqueue(sseText(['A long answer. ']));
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'talk' });
    await ws.waitFor((m) => m.type === 'audio', from, 5000);
    stream(ws, Buffer.concat([silence(500), hiss(1500)]));
    const pong = ws.messages.length;
    ws.send({ type: 'ping', id: 'after the silence' });
    await ws.waitFor((m) => m.type === 'pong', pong);
    expect(ws.messages.slice(from).some((m) => m.type === 'speech_started')).toBe(false);
    expect(ws.messages.slice(from).some((m) => m.type === 'audio_end')).toBe(false);
    stream(ws, SPEECH);
    await ws.waitFor((m) => m.type === 'speech_started', from);
    expect(
      await ws.waitFor((m) => m.type === 'assistant_end' && m.interrupted === true, from),
    ).toMatchObject({ heard: true });
    ws.close();
  });

  it('takes audio_end for the speech so far, and says when nothing was heard', async () => {
    const ws = await voiceSession(rig.engine.wsUrl);
    stream(ws, silence(500));
    let from = ws.messages.length;
    ws.send({ type: 'audio_end' });
    expect(await ws.waitFor((m) => m.type === 'error', from)).toEqual({
      type: 'error',
      code: 'no_speech',
      message: 'no speech was heard before audio_end',
    });
    llm.enqueue(sseText(['Sunny.']));
    from = ws.messages.length;
    stream(ws, SPEECH.subarray(0, SPEECH.length / 2));
    ws.send({ type: 'audio_end' });
    await ws.waitFor((m) => m.type === 'assistant_end', from, 10_000);
    expect(
      ws.messages
        .slice(from)
        .map((m) => m.type)
        .slice(0, 2),
    ).toEqual(['speech_started', 'transcript']);
    ws.close();
  });

  it('lets a session end its utterances itself (vad_silence_ms: 0), and refuses a bad value', async () => {
    const ws = await voiceSession(rig.engine.wsUrl, { vad_silence_ms: 0 });
    llm.enqueue(sseText(['Sunny.']));
    const from = ws.messages.length;
    stream(ws, Buffer.concat([silence(2000), SPEECH, silence(1000)]));
    ws.send({ type: 'audio_end' });
    await ws.waitFor((m) => m.type === 'assistant_end', from, 10_000);
    expect(ws.messages.slice(from).some((m) => m.type.startsWith('speech_'))).toBe(false);
    expect((await transcribed())[0]).toBe(SPEECH.length + silence(3000).length);
    const bad = ws.messages.length;
    ws.send({ type: 'session.update', vad_silence_ms: 20_000 });
    expect(await ws.waitFor((m) => m.type === 'error', bad)).toMatchObject({
      code: 'invalid_message',
      message: expect.stringContaining('"vad_silence_ms" must be a whole number of milliseconds'),
    });
    ws.close();
  });

  it('takes a telephone line’s audio (G.711 μ-law, 8 kHz) and answers in it', async () => {
    const ws = await voiceSession(rig.engine.wsUrl, {
      input_audio_format: 'g711_ulaw',
      output_audio_format: 'g711_ulaw',
    });
    expect(ws.messages.at(-1)!.audio_format).toEqual({
      format: 'g711_ulaw',
      sample_rate: 8000,
      channels: 1,
    });
    llm.enqueue(sseText(['Sunny.']));
    const from = ws.messages.length;
    // 20 ms of a call is 160 bytes.
    stream(ws, telephone(Buffer.concat([silence(1000), SPEECH, silence(1000)])), 160);
    await ws.waitFor((m) => m.type === 'audio_end', from, 10_000);
    expect(
      ws.messages
        .slice(from)
        .map((m) => m.type)
        .slice(0, 3),
    ).toEqual(['speech_started', 'speech_stopped', 'transcript']);
    // The transcription server got 16 kHz PCM of about the speech's length.
    const [sent] = await transcribed();
    expect(sent).toBeGreaterThan(SPEECH.length);
    expect(sent).toBeLessThan(SPEECH.length + silence(1500).length);
    // The answer's 0.2 s of speech, as 8 kHz μ-law: about 1600 bytes.
    const audio = ws.messages.slice(from).filter((m) => m.type === 'audio');
    expect(audio.every((m) => m.format === 'g711_ulaw' && m.sample_rate === 8000)).toBe(true);
    const heard = audio.reduce((n, m) => n + Buffer.from(m.data as string, 'base64').length, 0);
    expect(Math.abs(heard - 1600)).toBeLessThan(100);
    const bad = ws.messages.length;
    ws.send({ type: 'session.update', output_audio_format: 'mp3' });
    expect(await ws.waitFor((m) => m.type === 'error', bad)).toMatchObject({
      code: 'invalid_message',
      message: expect.stringContaining(
        '"output_audio_format" must be "pcm16", "g711_ulaw", "g711_alaw"',
      ),
    });
    ws.close();
  });
});
