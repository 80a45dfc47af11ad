/**
 * The audio formats a client may speak and hear besides the engine's own PCM: G.711 μ-law and
 * A-law at 8 kHz, what telephone networks carry (a telephony gateway relays a call's audio as it
 * is). The user's audio becomes 16 kHz PCM for voice detection and transcription; the answer's
 * speech becomes the client's format. Resampling with SpeexDSP's resampler (WebAssembly, npm
 * `@echogarden/speex-resampler-wasm`: one module, a few KB of state a stream), streaming, so that
 * no chunk boundary clicks; G.711 with npm `alawmulaw`. Pure: no Nest import.
 */
import g711 from 'alawmulaw';
import type { SpeexModule } from '@echogarden/speex-resampler-wasm/simd';

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

/** The Speex resampler's WebAssembly module: one for the process, a few KB of state a stream. */
let library: Promise<SpeexModule> | undefined;
/**
 * 0–10: SpeexDSP's "desktop" quality, more than a telephone line's 4 kHz of sound needs. With the
 * SIMD build, per 20 ms: 6 µs in (8 → 16 kHz), 8 µs out from 24 kHz speech, 35 µs from eSpeak's
 * 22.05 kHz (no whole ratio to 8 kHz); 1.5–4× the build without SIMD.
 */
const QUALITY = 5;

/** Resamples a stream of 16-bit mono PCM, keeping its filter's state between chunks. */
interface Resampler {
  resample(input: Int16Array): Int16Array;
  close(): void;
}

/** A resampler from `from` Hz to `to` Hz. */
async function resampler(from: number, to: number): Promise<Resampler> {
  library ??= import('@echogarden/speex-resampler-wasm/simd').then(({ default: load }) => load());
  const speex = await library;
  const error = speex._malloc(4);
  const state = speex._speex_resampler_init(1, from, to, QUALITY, error);
  const code = speex.HEAP32[error >> 2]!;
  speex._free(error);
  if (state === 0) throw new Error(`the Speex resampler cannot start (error ${code})`);
  let open = true;
  return {
    resample(input) {
      if (!open || input.length === 0) return new Int16Array(0);
      const room = Math.ceil((input.length * to) / from) + 64;
      // One block: the two lengths (in and out), the input, room for the output.
      const block = speex._malloc(8 + 2 * (input.length + room));
      const [inLength, outLength, inAt] = [block, block + 4, block + 8];
      const outAt = inAt + 2 * input.length;
      try {
        speex.HEAP16.set(input, inAt >> 1);
        speex.HEAP32[inLength >> 2] = input.length;
        speex.HEAP32[outLength >> 2] = room;
        const failed = speex._speex_resampler_process_int(
          state,
          0,
          inAt,
          inLength,
          outAt,
          outLength,
        );
        if (failed !== 0) throw new Error(`the Speex resampler failed (error ${failed})`);
        return speex.HEAP16.slice(outAt >> 1, (outAt >> 1) + speex.HEAP32[outLength >> 2]!);
      } finally {
        speex._free(block);
      }
    },
    close() {
      if (open) speex._speex_resampler_destroy(state);
      open = false;
    },
  };
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
    convert: (data) => bytesOf(src.resample(codec.decode(data))),
    close: () => src.close(),
  };
}

/** Speech synthesised as PCM at `pcmRate`, in `format`; undefined for PCM, sent as it is. */
export async function outbound(
  format: AudioFormatName,
  pcmRate: number,
): Promise<AudioConverter | undefined> {
  if (format === 'pcm16') return undefined;
  const codec = codecOf(format);
  return rateConverter(pcmRate, G711_RATE, (samples) => bytesOf(codec.encode(samples)));
}

/**
 * 16-bit mono PCM at `from` Hz as PCM at `to` Hz (or as `encode` makes the samples), as it
 * streams.
 */
export async function rateConverter(
  from: number,
  to: number,
  encode: (samples: Int16Array) => Buffer = bytesOf,
): Promise<AudioConverter> {
  const src = await resampler(from, to);
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
      return encode(src.resample(pcm));
    },
    close: () => src.close(),
  };
}
