import g711 from 'alawmulaw';
import { heardFormat, inbound, outbound } from './audio-formats.js';

/** `seconds` of a `hz` tone at `rate`, half of full scale. */
function tone(hz: number, rate: number, seconds: number): Int16Array {
  const out = new Int16Array(Math.round(rate * seconds));
  for (let i = 0; i < out.length; i++)
    out[i] = Math.round(16000 * Math.sin((2 * Math.PI * hz * i) / rate));
  return out;
}
const bytes = (a: Int16Array | Uint8Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
const samples = (b: Buffer) =>
  new Int16Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.length));
/** Sign changes: twice the tone's frequency per second of audio. */
const crossings = (s: Int16Array) => {
  let n = 0;
  for (let i = 1; i < s.length; i++) if (s[i - 1]! < 0 !== s[i]! < 0) n++;
  return n;
};
const peak = (s: Int16Array) => s.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
/** The largest step between two samples: a click at a chunk's edge would stand out. */
const step = (s: Int16Array) => {
  let max = 0;
  for (let i = 1; i < s.length; i++) max = Math.max(max, Math.abs(s[i]! - s[i - 1]!));
  return max;
};

describe('audio formats', () => {
  it('hears a telephone line: G.711 at 8 kHz becomes 16 kHz PCM, chunk by chunk, with no click', async () => {
    for (const law of ['g711_ulaw', 'g711_alaw'] as const) {
      const codec = law === 'g711_ulaw' ? g711.mulaw : g711.alaw;
      const line = bytes(codec.encode(tone(1000, 8000, 1)));
      const converter = (await inbound(law))!;
      // 20 ms frames, as a gateway relays them.
      const parts: Buffer[] = [];
      for (let at = 0; at < line.length; at += 160)
        parts.push(converter.convert(line.subarray(at, at + 160)));
      converter.close();
      const pcm = samples(Buffer.concat(parts));
      expect(Math.abs(pcm.length - 16000)).toBeLessThan(200); // the filter's delay
      expect(
        Math.abs(crossings(pcm.subarray(400)) - 2 * 1000 * ((pcm.length - 400) / 16000)),
      ).toBeLessThan(6);
      expect(Math.abs(peak(pcm) - 16000)).toBeLessThan(1500);
      // A 1 kHz tone at 16 kHz moves at most 2π·16000/16 ≈ 6300 a sample.
      expect(step(pcm.subarray(400))).toBeLessThan(7000);
    }
  });

  it('speaks to a telephone line: PCM at the synthesiser’s rate becomes G.711 at 8 kHz', async () => {
    const speech = bytes(tone(440, 24000, 1));
    const converter = (await outbound('g711_ulaw', 24000))!;
    // Chunks of odd lengths: a sample split in two waits for its second byte.
    const parts: Buffer[] = [];
    for (let at = 0; at < speech.length; at += 4801)
      parts.push(converter.convert(speech.subarray(at, at + 4801)));
    converter.close();
    const line = Buffer.concat(parts);
    expect(Math.abs(line.length - 8000)).toBeLessThan(100);
    const pcm = g711.mulaw.decode(new Uint8Array(line));
    expect(
      Math.abs(crossings(pcm.subarray(200)) - 2 * 440 * ((pcm.length - 200) / 8000)),
    ).toBeLessThan(6);
    expect(Math.abs(peak(pcm) - 16000)).toBeLessThan(1500);
    // 440 Hz at 8 kHz moves at most 2π·16000·440/8000 ≈ 5530 a sample (and G.711's steps).
    expect(step(pcm.subarray(200))).toBeLessThan(6500);
  });

  it('leaves PCM as it is, and names what the client hears', async () => {
    expect(await inbound('pcm16')).toBeUndefined();
    expect(await outbound('pcm16', 24000)).toBeUndefined();
    expect(heardFormat('pcm16', 22050)).toEqual({
      format: 'pcm_s16le',
      sample_rate: 22050,
      channels: 1,
    });
    expect(heardFormat('g711_alaw', 22050)).toEqual({
      format: 'g711_alaw',
      sample_rate: 8000,
      channels: 1,
    });
  });

  it('holds 250 phone calls at once in a few MB: their resamplers share one WebAssembly memory', async () => {
    const before = process.memoryUsage().arrayBuffers;
    const open = [];
    for (let i = 0; i < 250; i++)
      open.push((await inbound('g711_ulaw'))!, (await outbound('g711_ulaw', 22050))!);
    const line = bytes(g711.mulaw.encode(tone(1000, 8000, 0.02)));
    const speech = bytes(tone(440, 22050, 0.2));
    for (let i = 0; i < open.length; i += 2) {
      expect(open[i]!.convert(line).length).toBeGreaterThan(500);
      expect(open[i + 1]!.convert(speech).length).toBeGreaterThan(1400);
    }
    // Every stream's state lives in the one module's memory (16 MB to start with); a module
    // (and memory) a stream would have taken 25 MB each.
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(64 * 1024 * 1024);
    for (const converter of open) converter.close();
    // Closed twice, or used once closed: nothing happens.
    open[0]!.close();
    expect(open[0]!.convert(line)).toHaveLength(0);
  });
});
