/**
 * WebRTC's voice activity detector (libfvad, compiled to WebAssembly: npm
 * `@ozymandiasthegreat/vad`), loaded the first time a session needs it. Pure: no Nest import.
 */
import { FRAME_SAMPLES, type VoiceActivity } from './utterance-detector.js';

type VadModule = typeof import('@ozymandiasthegreat/vad');
type VadClass = VadModule['default'] extends () => Promise<infer C> ? C : never;

let loaded: Promise<{ Vad: VadClass; voice: VadModule['VADEvent']['VOICE'] }> | undefined;

/** One detector of 16 kHz speech; `close` frees its WebAssembly state. */
export interface WebRtcVad extends VoiceActivity {
  close(): void;
}

/** A detector of `mode` aggressiveness (0–3). */
export async function webRtcVad(mode: number): Promise<WebRtcVad> {
  loaded ??= import('@ozymandiasthegreat/vad').then(async (module) => ({
    Vad: await module.default(),
    voice: module.VADEvent.VOICE,
  }));
  const { Vad, voice } = await loaded;
  const vad = new Vad(mode, 16_000);
  // The library copies a frame's whole underlying buffer (it reads no offset): each frame is
  // handed over in an array of its own.
  const own = new Int16Array(FRAME_SAMPLES);
  let open = true;
  return {
    // Silence, or an error (a frame it cannot take): not speech.
    voiced: (frame) => {
      own.set(frame);
      return vad.processFrame(own) === voice;
    },
    close: () => {
      if (open) vad.destroy();
      open = false;
    },
  };
}
