/**
 * The audio formats a client may speak and hear besides the engine's own PCM: G.711 μ-law and
 * A-law at 8 kHz, what telephone networks carry (a telephony gateway relays a call's audio as it
 * is). The user's audio becomes 16 kHz PCM for voice detection and transcription; the answer's
 * speech becomes the client's format. Resampling with libsamplerate (WebAssembly, npm
 * `@alexanderolsen/libsamplerate-js`), streaming, so that no chunk boundary clicks; G.711 with
 * npm `alawmulaw`. Pure: no Nest import.
 */
import g711 from 'alawmulaw';
import type { SRC } from '@alexanderolsen/libsamplerate-js/dist/src.js';

export const AUDIO_FORMATS = ['pcm16', 'g711_ulaw', 'g711_alaw'] as const;
export type AudioFormatName = (typeof AUDIO_FORMATS)[number];

/** How `audio` events and `session.updated` describe the audio a client hears. */
export interface AudioFormat {
  format: 'pcm_s16le' | 'g711_ulaw' | 'g711_alaw';
  sample_rate: number;
  channels: 1;
}

/** The rate of the user's audio the engine works on (voice detection, transcription). */
export const INPUT_RATE = 16_000;
const G711_RATE = 8_000;

/** The audio a client in `format` hears, from speech synthesised at `pcmRate`. */
export function heardFormat(format: AudioFormatName, pcmRate: number): AudioFormat {
  return format === 'pcm16'
    ? { format: 'pcm_s16le', sample_rate: pcmRate, channels: 1 }
    : { format, sample_rate: G711_RATE, channels: 1 };
}

/** One direction of a client's audio, converted as it streams. */
export interface AudioConverter {
  convert(data: Buffer): Buffer;
  close(): void;
}

type Library = typeof import('@alexanderolsen/libsamplerate-js');
let library: Promise<Library> | undefined;

async function resampler(from: number, to: number): Promise<SRC> {
  // A CommonJS module whose exports Node cannot name when imported: its functions are the
  // default export (module.exports) under Node, which jest names as well.
  library ??= import('@alexanderolsen/libsamplerate-js').then(
    (module) => (module as Library & { default?: Library }).default ?? module,
  );
  const { create, ConverterType } = await library;
  return create(1, from, to, { converterType: ConverterType.SRC_SINC_FASTEST });
}

function toFloat(pcm: Int16Array): Float32Array {
  const out = new Float32Array(pcm.length);
  for (let i = 0; i < pcm.length; i++) out[i] = pcm[i]! / 32768;
  return out;
}

function toInt16(samples: Float32Array): Int16Array {
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++)
    out[i] = Math.max(-32768, Math.min(32767, Math.round(samples[i]! * 32768)));
  return out;
}

const codecOf = (format: 'g711_ulaw' | 'g711_alaw') =>
  format === 'g711_ulaw' ? g711.mulaw : g711.alaw;

const bytesOf = (samples: Int16Array | Uint8Array) =>
  Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);

/** The user's audio in `format` as 16 kHz PCM; undefined for PCM, taken as it is. */
export async function inbound(format: AudioFormatName): Promise<AudioConverter | undefined> {
  if (format === 'pcm16') return undefined;
  const codec = codecOf(format);
  const src = await resampler(G711_RATE, INPUT_RATE);
  return {
    convert: (data) => bytesOf(toInt16(src.full(toFloat(codec.decode(data))))),
    close: () => src.destroy(),
  };
}

/** Speech synthesised as PCM at `pcmRate`, in `format`; undefined for PCM, sent as it is. */
export async function outbound(
  format: AudioFormatName,
  pcmRate: number,
): Promise<AudioConverter | undefined> {
  if (format === 'pcm16') return undefined;
  const codec = codecOf(format);
  const src = await resampler(pcmRate, G711_RATE);
  // A sample split between two chunks waits for its second byte.
  let odd: Buffer | undefined;
  return {
    convert: (data) => {
      const whole = odd ? Buffer.concat([odd, data]) : data;
      const even = whole.length & ~1;
      odd = even < whole.length ? Buffer.from(whole.subarray(even)) : undefined;
      // An Int16Array must start at an even offset: a copy when the chunk does not.
      const bytes = whole.byteOffset % 2 === 0 ? whole : Buffer.from(whole);
      const pcm = new Int16Array(bytes.buffer, bytes.byteOffset, even >> 1);
      return bytesOf(codec.encode(toInt16(src.full(toFloat(pcm)))));
    },
    close: () => src.destroy(),
  };
}
