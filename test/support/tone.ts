/** `seconds` of a 440 Hz tone (peak 8000), 16-bit, at `rate`, on `channels` channels (interleaved). */
export function tone(rate: number, seconds: number, channels = 1): Buffer {
  const frames = Math.round(rate * seconds);
  const out = Buffer.alloc(2 * frames * channels);
  for (let i = 0; i < frames; i++) {
    const sample = Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / rate));
    for (let c = 0; c < channels; c++) out.writeInt16LE(sample, 2 * (i * channels + c));
  }
  return out;
}
