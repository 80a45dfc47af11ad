import { Readable } from 'node:stream';
import { speechPcm, SpeechAudioError } from './speech-audio.js';
import { tone } from '../../test/support/tone.js';
import { wavOf } from './wav.js';

/** `bytes` cut every `size` bytes, as a server's stream may come. */
function cutEvery(bytes: Buffer, size: number): AsyncIterable<Uint8Array> {
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size));
  return Readable.from(chunks);
}

const all = async (chunks: AsyncIterable<Buffer>) => {
  const got: Buffer[] = [];
  for await (const chunk of chunks) got.push(chunk);
  return Buffer.concat(got);
};

/** A WAV header of its own making: `channels`, `bits`, format `code`, chunks before the data. */
function wav(
  pcm: Buffer,
  rate: number,
  { channels = 1, bits = 16, code = 1, extra = Buffer.alloc(0), dataSize = pcm.length } = {},
) {
  const fmt = Buffer.alloc(24);
  fmt.write('fmt ', 0, 'latin1');
  fmt.writeUInt32LE(16, 4);
  fmt.writeUInt16LE(code, 8);
  fmt.writeUInt16LE(channels, 10);
  fmt.writeUInt32LE(rate, 12);
  fmt.writeUInt32LE((rate * channels * bits) / 8, 16);
  fmt.writeUInt16LE((channels * bits) / 8, 20);
  fmt.writeUInt16LE(bits, 22);
  const data = Buffer.alloc(8);
  data.write('data', 0, 'latin1');
  data.writeUInt32LE(dataSize, 4);
  const riff = Buffer.from('RIFF\0\0\0\0WAVE', 'latin1');
  return Buffer.concat([riff, fmt, extra, data, pcm]);
}

describe('speechPcm: what a speech server answers, as the engine PCM', () => {
  it('passes raw PCM as it is, in whole samples however it is cut', async () => {
    const pcm = tone(24000, 0.1);
    expect(await all(speechPcm(cutEvery(pcm, 7), 24000))).toEqual(pcm);
  });

  it("takes a WAV's header off, cut anywhere, metadata chunks (odd-sized, padded) included", async () => {
    const pcm = tone(24000, 0.1);
    expect(await all(speechPcm(cutEvery(wavOf(pcm, 24000), 5), 24000))).toEqual(pcm);
    const list = Buffer.concat([
      Buffer.from('LIST', 'latin1'),
      Buffer.from([5, 0, 0, 0]),
      Buffer.from('INFOx\0'),
    ]);
    expect(await all(speechPcm(cutEvery(wav(pcm, 24000, { extra: list }), 3), 24000))).toEqual(pcm);
  });

  it('reads a streamed WAV of unknown length to its end, and stops at a known length', async () => {
    const pcm = tone(24000, 0.05);
    expect(
      await all(speechPcm(cutEvery(wav(pcm, 24000, { dataSize: 0xffffffff }), 100), 24000)),
    ).toEqual(pcm);
    const trailer = Buffer.from('LIST\x04\0\0\0abcd', 'latin1');
    const withTrailer = Buffer.concat([wav(pcm, 24000), trailer]);
    expect(await all(speechPcm(cutEvery(withTrailer, 64), 24000))).toEqual(pcm);
  });

  it('mixes stereo down and brings 48 kHz and 22.05 kHz to the engine rate: the same length of speech', async () => {
    for (const [rate, channels] of [
      [48000, 2],
      [22050, 1],
    ] as const) {
      const got = await all(
        speechPcm(cutEvery(wav(tone(rate, 0.5, channels), rate, { channels }), 4096), 24000),
      );
      // 0.5 s at 24 kHz: 12 000 samples (the resampler's filter holds back a few).
      expect(got.length / 2).toBeGreaterThan(11900);
      expect(got.length / 2).toBeLessThanOrEqual(12000);
      // Still the tone, not silence or noise: its loudness kept.
      let peak = 0;
      for (let i = 200; i < got.length / 2; i++)
        peak = Math.max(peak, Math.abs(got.readInt16LE(2 * i)));
      expect(peak).toBeGreaterThan(7000);
      expect(peak).toBeLessThan(9000);
    }
  });

  it('refuses a WAV that is not 16-bit PCM, saying what it is', async () => {
    const float = wav(Buffer.alloc(800), 24000, { bits: 32, code: 3 });
    await expect(all(speechPcm(cutEvery(float, 50), 24000))).rejects.toThrow(
      new SpeechAudioError(
        'the TTS server answered a WAV of 32-bit samples (format 3), not 16-bit PCM',
      ),
    );
  });
});
