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

/** A WAV of its own making: `channels`, `bits`, format `code` (0xFFFE: extensible, of `subCode`), chunks before the data. */
function wav(
  pcm: Buffer,
  rate: number,
  {
    channels = 1,
    bits = 16,
    code = 1,
    subCode = 1,
    extra = Buffer.alloc(0),
    dataSize = pcm.length,
  }: {
    channels?: number;
    bits?: number;
    code?: number;
    subCode?: number;
    extra?: Buffer;
    dataSize?: number;
  } = {},
) {
  const size = code === 0xfffe ? 40 : 16;
  const fmt = Buffer.alloc(8 + size);
  fmt.write('fmt ', 0, 'latin1');
  fmt.writeUInt32LE(size, 4);
  fmt.writeUInt16LE(code, 8);
  fmt.writeUInt16LE(channels, 10);
  fmt.writeUInt32LE(rate, 12);
  fmt.writeUInt32LE((rate * channels * bits) / 8, 16);
  fmt.writeUInt16LE((channels * bits) / 8, 20);
  fmt.writeUInt16LE(bits, 22);
  if (code === 0xfffe) {
    fmt.writeUInt16LE(22, 24); // cbSize
    fmt.writeUInt16LE(bits, 26); // valid bits
    fmt.writeUInt16LE(subCode, 32); // the sub-format GUID's first two bytes
  }
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

  it('reads float (torchaudio, scipy), 8-, 24- and 32-bit samples as 16-bit, and an extensible header', async () => {
    const pcm = tone(24000, 0.05);
    const samples = Array.from({ length: pcm.length / 2 }, (_, i) => pcm.readInt16LE(2 * i));
    /** `samples` in `bits` of format `code`. */
    const encode = (bits: number, code: number) => {
      const width = bits / 8;
      const out = Buffer.alloc(width * samples.length);
      samples.forEach((v, i) => {
        if (code === 3 && bits === 32) out.writeFloatLE(v / 32768, 4 * i);
        else if (code === 3) out.writeDoubleLE(v / 32768, 8 * i);
        else if (bits === 8) out[i] = Math.round(v / 256) + 128;
        else if (bits === 24) out.writeIntLE(v * 256, 3 * i, 3);
        else out.writeInt32LE(v * 65536, 4 * i);
      });
      return out;
    };
    for (const [bits, code, within] of [
      [32, 3, 1],
      [64, 3, 1],
      [24, 1, 0],
      [32, 1, 0],
      [8, 1, 256],
    ] as const) {
      const got = await all(
        speechPcm(cutEvery(wav(encode(bits, code), 24000, { bits, code }), 7), 24000),
      );
      expect(got.length).toBe(pcm.length);
      for (let i = 0; i < samples.length; i++)
        expect(Math.abs(got.readInt16LE(2 * i) - samples[i]!)).toBeLessThanOrEqual(within);
    }
    // WAVE_FORMAT_EXTENSIBLE (fmt of 40 bytes) whose sub-format is float.
    const extensible = wav(encode(32, 3), 24000, { bits: 32, code: 0xfffe, subCode: 3 });
    expect((await all(speechPcm(cutEvery(extensible, 64), 24000))).length).toBe(pcm.length);
  });

  it('refuses a WAV of samples it cannot read, saying what they are', async () => {
    const alaw = wav(Buffer.alloc(800), 8000, { bits: 8, code: 6 });
    await expect(all(speechPcm(cutEvery(alaw, 50), 24000))).rejects.toThrow(
      new SpeechAudioError(
        'the TTS server answered a WAV of 8-bit samples in format 6, which is neither integer PCM nor float',
      ),
    );
  });
});
