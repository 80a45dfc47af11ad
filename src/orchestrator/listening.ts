/**
 * A session's ear: the user's audio gathered into utterances, ended by the client (`audio_end`)
 * or, with voice activity detection (VAD_SILENCE_MS, the session's `vad_silence_ms`), by the
 * engine when the user has stopped speaking. Pure: no Nest import.
 */
import { UtteranceDetector, type Detected } from '../speech/utterance-detector.js';
import { webRtcVad, type WebRtcVad } from '../speech/webrtc-vad.js';

export interface ListeningSettings {
  /** Silence after speech that ends an utterance; 0: the client ends each (`audio_end`). */
  silenceMs: number;
  minSpeechMs: number;
  /** WebRTC VAD's aggressiveness, 0–3. */
  mode: number;
  /** STT_MAX_SECONDS of 16 kHz 16-bit audio. */
  maxBytes: number;
}

/** What a piece of the user's audio asks of the conversation. */
export type Heard =
  /** Audio, where the client ends utterances: a barge-in, whatever it holds. */
  | { type: 'audio' }
  /** The utterance outgrew STT_MAX_SECONDS where the client ends utterances: it was dropped. */
  | { type: 'too_long' }
  | Detected;

export class Listening {
  private utterance: Buffer[] = [];
  private bytes = 0;
  private ear: { detector: UtteranceDetector; vad: WebRtcVad; mode: number } | undefined;
  private closed = false;

  constructor(private readonly settings: () => ListeningSettings) {}

  /** Takes the next audio (whole 16-bit samples). */
  async hear(pcm: Buffer): Promise<Heard[]> {
    const settings = this.settings();
    if (settings.silenceMs === 0) {
      this.drop(); // a detector of earlier settings, with what it held
      if (this.bytes + pcm.length > settings.maxBytes) {
        this.utterance = [];
        this.bytes = 0;
        return [{ type: 'audio' }, { type: 'too_long' }];
      }
      this.utterance.push(pcm);
      this.bytes += pcm.length;
      return [{ type: 'audio' }];
    }
    this.utterance = [];
    this.bytes = 0;
    const ear = await this.earFor(settings);
    if (!ear) return [];
    ear.detector.configure(settings);
    return ear.detector.push(pcm);
  }

  /** The client ends the utterance (`audio_end`): what it said, if anything. */
  end(): Buffer | undefined {
    if (this.ear) return this.ear.detector.end();
    const pcm = Buffer.concat(this.utterance);
    this.utterance = [];
    this.bytes = 0;
    return pcm.length > 0 ? pcm : undefined;
  }

  /** Whether the engine ends utterances by itself (for what `audio_end` without speech means). */
  get detecting(): boolean {
    return this.settings().silenceMs > 0;
  }

  close(): void {
    this.closed = true;
    this.drop();
  }

  private async earFor(settings: ListeningSettings) {
    if (this.ear?.mode !== settings.mode) {
      this.drop();
      const vad = await webRtcVad(settings.mode);
      // Closed, or another frame made one, while it loaded.
      if (this.closed || this.ear) {
        vad.close();
        return this.ear;
      }
      this.ear = { detector: new UtteranceDetector(vad, settings), vad, mode: settings.mode };
    }
    return this.ear;
  }

  private drop(): void {
    this.ear?.vad.close();
    this.ear = undefined;
  }
}
