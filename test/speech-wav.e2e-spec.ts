import { wavOf } from '../src/speech/wav.js';
import { sseText } from './support/fake-llm.js';
import { useVoiceRig } from './support/speech-server.js';
import { tone } from './support/tone.js';
import { voiceSession, type Msg } from './support/ws-client.js';

/** The PCM a client heard in `msgs` (`audio` events, base64). */
const heard = (msgs: Msg[]) =>
  Buffer.concat(
    msgs.filter((m) => m.type === 'audio').map((m) => Buffer.from(m.data as string, 'base64')),
  );

/** wavOf's header, made to say `channels` channels. */
function stereoWav(pcm: Buffer, rate: number): Buffer {
  const file = wavOf(pcm, rate);
  file.writeUInt16LE(2, 22);
  file.writeUInt32LE(rate * 4, 28);
  file.writeUInt16LE(4, 32);
  return file;
}

// Speech servers that make only WAV, or ignore response_format "pcm" for it (at 22.05, 44.1 or
// 48 kHz, in stereo): their speech was played as it came, header and all, at the engine's rate, so
// sped up or slowed down. It is now read as WAV, its rate made the engine's (TTS_SAMPLE_RATE).
describe('A TTS server that answers WAV', () => {
  const rig = useVoiceRig();

  it('is heard for as long as it speaks, at the engine rate, in mono', async () => {
    rig.speech.respond((_req, res) =>
      res
        .writeHead(200, { 'Content-Type': 'audio/wav' })
        .end(stereoWav(tone(48000, 0.5, 2), 48000)),
    );
    const ws = await voiceSession(rig.engine.wsUrl);
    rig.llm.enqueue(sseText(['Hello there.']));
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'Hi' });
    await ws.waitFor((m) => m.type === 'audio_end', from, 10000);
    const msgs = ws.messages.slice(from);
    expect(msgs.filter((m) => m.type === 'error')).toEqual([]);
    // 0.5 s at 24 kHz, 16-bit mono: 24 000 bytes (the resampler holds back a few samples).
    const pcm = heard(msgs);
    expect(pcm.length).toBeGreaterThan(23_800);
    expect(pcm.length).toBeLessThanOrEqual(24_000);
    // The header was not played: no sample of it ('RIFF' read as PCM is 0x4952, 18770).
    expect(pcm.readInt16LE(0)).not.toBe(0x4952);
    ws.close();
  });
});
