/**
 * A scenario turn's audio, as a client sends the engine its user's speech: 16-bit mono PCM at
 * 16 kHz. A WAV file of any rate, channels and sample format (what a recorder, a phone system's
 * export or a synthesiser writes) is read as the engine reads its TTS server's; any other file is
 * taken as that PCM already. Pure: no Nest import.
 */
import { readFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { speechPcm } from '../speech/speech-audio.js';
import { INPUT_RATE } from '../speech/audio-formats.js';

/** Bytes of PCM a client sends in one frame: 100 ms. */
export const FRAME_BYTES = (INPUT_RATE / 10) * 2;

/** The audio at `path` as the engine's input PCM; throws an Error saying why it cannot be. */
export async function readTurnAudio(path: string): Promise<Buffer> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw new Error(`cannot be read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, {
      cause: error,
    });
  }
  const wav =
    bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WAVE';
  if (!wav && bytes.length % 2 !== 0)
    throw new Error(
      'is no WAV, and as PCM it has an odd number of bytes (16-bit samples: two each)',
    );
  const pieces: Buffer[] = [];
  for await (const pcm of speechPcm(Readable.from([bytes]), INPUT_RATE, 'is')) pieces.push(pcm);
  const pcm = Buffer.concat(pieces);
  if (pcm.length === 0) throw new Error('holds no audio');
  return pcm;
}

/** Seconds of the engine's input PCM. */
export const audioSecs = (pcm: Buffer) => pcm.length / 2 / INPUT_RATE;
