/**
 * The audio a speech server answers a synthesis with, as the engine's PCM: raw 16-bit mono PCM as
 * it is, or a WAV file (what servers that ignore `response_format: "pcm"`, or only make WAV, send)
 * read as one: its header taken off, its samples made 16-bit (from float, 8, 24 or 32 bits), its
 * channels mixed down and its rate made the engine's. A WAV at another rate, played as it was,
 * would have been the voice sped up or slowed down. Pure: no Nest import.
 */
import { rateConverter, type AudioConverter } from './audio-formats.js';
import { wholeSamples } from './tts-engine.js';

/** What a WAV's `fmt ` chunk says of its samples. */
export interface WavFormat {
  /** 1: integer PCM; 3: IEEE float (WAVE_FORMAT_EXTENSIBLE's sub-format in its place). */
  code: number;
  channels: number;
  sampleRate: number;
  bitsPerSample: number;
}

/** The most of a WAV before its samples (its chunks of metadata) the engine reads. */
const MAX_HEADER_BYTES = 64 * 1024;
/** A data chunk's size when the server streamed the file without knowing its length. */
const UNKNOWN_SIZES = new Set([0, 0xffffffff]);

const tag = (bytes: Buffer, at: number) => bytes.toString('latin1', at, at + 4);

/** A speech server's audio that cannot be the engine's, with why. */
export class SpeechAudioError extends Error {}

/** Who gave the audio, as the errors about it begin. */
const TTS_SERVER = 'the TTS server answered';

/**
 * Where a WAV's samples begin in `bytes` (which starts with RIFF…WAVE), its format and the data
 * chunk's size; undefined while more bytes are needed.
 */
export function wavHeader(
  bytes: Buffer,
  from = TTS_SERVER,
): { format: WavFormat; dataAt: number; dataBytes: number | undefined } | undefined {
  let format: WavFormat | undefined;
  for (let at = 12; at + 8 <= bytes.length;) {
    const id = tag(bytes, at);
    const size = bytes.readUInt32LE(at + 4);
    if (id === 'data') {
      if (!format) throw new SpeechAudioError(`${from} a WAV with no fmt chunk`);
      return { format, dataAt: at + 8, dataBytes: UNKNOWN_SIZES.has(size) ? undefined : size };
    }
    if (at + 8 + size > bytes.length) return undefined;
    if (id === 'fmt ' && size >= 16) {
      const code = bytes.readUInt16LE(at + 8);
      format = {
        // WAVE_FORMAT_EXTENSIBLE: the code is the first two bytes of its sub-format's GUID.
        code: code === 0xfffe && size >= 40 ? bytes.readUInt16LE(at + 32) : code,
        channels: bytes.readUInt16LE(at + 10),
        sampleRate: bytes.readUInt32LE(at + 12),
        bitsPerSample: bytes.readUInt16LE(at + 22),
      };
    }
    at += 8 + size + (size % 2); // chunks are padded to an even length
  }
  return undefined;
}

/**
 * How to read one sample of a WAV's format as a number from -1 to 1: integer PCM of 8 (unsigned),
 * 16, 24 or 32 bits, IEEE float of 32 or 64 (what torchaudio and scipy write); undefined for
 * anything else.
 */
function sampleReader(format: WavFormat): ((bytes: Buffer, at: number) => number) | undefined {
  const { code, bitsPerSample: bits } = format;
  if (code === 3 && bits === 32) return (b, at) => b.readFloatLE(at);
  if (code === 3 && bits === 64) return (b, at) => b.readDoubleLE(at);
  if (code !== 1) return undefined;
  if (bits === 8) return (b, at) => (b[at]! - 128) / 128;
  if (bits === 16) return (b, at) => b.readInt16LE(at) / 32768;
  if (bits === 24) return (b, at) => b.readIntLE(at, 3) / 8388608;
  if (bits === 32) return (b, at) => b.readInt32LE(at) / 2147483648;
  return undefined;
}

/** Whole frames of `channels` samples as 16-bit mono PCM: each frame's mean, clipped. */
function monoPcm(
  frames: Buffer,
  channels: number,
  width: number,
  read: (bytes: Buffer, at: number) => number,
): Buffer {
  const count = Math.floor(frames.length / (width * channels));
  const mono = Buffer.allocUnsafe(2 * count);
  for (let i = 0; i < count; i++) {
    let sum = 0;
    for (let c = 0; c < channels; c++) sum += read(frames, width * (i * channels + c));
    const value = Math.round((sum / channels) * 32768);
    mono.writeInt16LE(Math.max(-32768, Math.min(32767, value)), 2 * i);
  }
  return mono;
}

/**
 * `chunks` as 16-bit mono PCM at `rate`: raw PCM passes as it is (whole samples per chunk); a WAV
 * (RIFF…WAVE) is read as one. Throws SpeechAudioError for a WAV of samples it cannot read, its
 * message beginning with `from` (who gave it: "the TTS server answered").
 */
export async function* speechPcm(
  chunks: AsyncIterable<Uint8Array>,
  rate: number,
  from = TTS_SERVER,
): AsyncIterable<Buffer> {
  const source = chunks[Symbol.asyncIterator]();
  let head = Buffer.alloc(0);
  while (head.length < 12) {
    const next = await source.next();
    if (next.done) break;
    head = Buffer.concat([head, next.value]);
  }
  const rest = { [Symbol.asyncIterator]: () => source };
  if (head.length < 12 || tag(head, 0) !== 'RIFF' || tag(head, 8) !== 'WAVE') {
    yield* wholeSamples(withFirst(head, rest));
    return;
  }
  let header = wavHeader(head, from);
  while (!header) {
    if (head.length > MAX_HEADER_BYTES)
      throw new SpeechAudioError(`${from} a WAV whose header never ended`);
    const next = await source.next();
    if (next.done) return; // a WAV with no samples
    head = Buffer.concat([head, next.value]);
    header = wavHeader(head, from);
  }
  const { format, dataAt, dataBytes } = header;
  const read = sampleReader(format);
  if (!read)
    throw new SpeechAudioError(
      `${from} a WAV of ${format.bitsPerSample}-bit samples in format ${format.code}, which is neither integer PCM nor float`,
    );
  if (format.channels < 1 || format.sampleRate < 1)
    throw new SpeechAudioError(`${from} a WAV with no channels or no rate`);
  const width = format.bitsPerSample / 8;
  const plain = format.code === 1 && width === 2 && format.channels === 1;
  const frame = width * format.channels;
  let left = dataBytes ?? Infinity;
  let carry = Buffer.alloc(0);
  const converter: AudioConverter | undefined =
    format.sampleRate === rate ? undefined : await rateConverter(format.sampleRate, rate);
  try {
    for await (const chunk of withFirst(head.subarray(dataAt), rest)) {
      if (left <= 0) break;
      const taken = Math.min(chunk.length, left);
      left -= taken;
      const bytes = Buffer.concat([carry, chunk.subarray(0, taken)]);
      const whole = bytes.length - (bytes.length % frame);
      carry = Buffer.from(bytes.subarray(whole));
      const frames = bytes.subarray(0, whole);
      const mono = plain ? frames : monoPcm(frames, format.channels, width, read);
      const pcm = converter ? converter.convert(mono) : mono;
      if (pcm.length > 0) yield pcm;
    }
  } finally {
    converter?.close();
  }
}

/** `first`, then what `rest` gives. */
async function* withFirst(first: Buffer, rest: AsyncIterable<Uint8Array>): AsyncIterable<Buffer> {
  if (first.length > 0) yield first;
  for await (const chunk of rest) yield Buffer.from(chunk);
}
