/**
 * A session's ear: the user's audio gathered into utterances, ended by the client (`audio_end`)
 * or, with voice activity detection (VAD_SILENCE_MS, the session's `vad_silence_ms`), by the
 * engine when the user has stopped speaking. Pure: no Nest import.
 */
import {
  inbound,
  INPUT_RATE,
  type AudioConverter,
  type AudioFormatName,
} from '../speech/audio-formats.js';
import { UtteranceDetector, type Detected } from '../speech/utterance-detector.js';
import { webRtcVad, type WebRtcVad } from '../speech/webrtc-vad.js';

export interface ListeningSettings {
  /** Silence after speech that ends an utterance; 0: the client ends each (`audio_end`). */
  silenceMs: number;
  minSpeechMs: number;
  /** WebRTC VAD's aggressiveness, 0–3. */
  mode: number;
  /** STT_MAX_SECONDS: the longest utterance. */
  maxSeconds: number;
  /** The format the client sends its audio in (`input_audio_format`). */
  format: AudioFormatName;
}

/** What a piece of the user's audio asks of the conversation. */
export type Heard =
  /** Audio, where the client ends utterances: a barge-in, whatever it holds. */
  | { type: 'audio' }
  /** Not audio of the session's format, or an utterance outgrowing STT_MAX_SECONDS (dropped). */
  | { type: 'invalid'; message: string }
  | Detected;

export class Listening {
  private utterance: Buffer[] = [];
  private bytes = 0;
  private ear: { detector: UtteranceDetector; vad: WebRtcVad; mode: number } | undefined;
  private closed = false;
  private decoder: { format: AudioFormatName; converter: AudioConverter | undefined } | undefined;

  constructor(private readonly settings: () => ListeningSettings) {}

  /** Takes the next audio, in the session's format. */
  async hear(data: Buffer): Promise<Heard[]> {
    const settings = this.settings();
    if (settings.format === 'pcm16' && data.length % 2 !== 0)
      return [
        {
          type: 'invalid',
          message: 'audio must be 16-bit PCM: a frame held an odd number of bytes',
        },
      ];
    // The decoder and the detector are made once (again when a setting changes): later frames
    // go on without waiting.
    const pcm =
      this.decoder?.format === settings.format
        ? this.converted(data)
        : await this.newDecoder(settings.format, data);
    const maxBytes = Math.floor(settings.maxSeconds * INPUT_RATE) * 2;
    if (settings.silenceMs === 0) {
      this.drop(); // a detector of earlier settings, with what it held
      if (this.bytes + pcm.length > maxBytes) {
        this.utterance = [];
        this.bytes = 0;
        const message = `utterance longer than STT_MAX_SECONDS (${settings.maxSeconds}s): audio dropped`;
        return [{ type: 'audio' }, { type: 'invalid', message }];
      }
      this.utterance.push(pcm);
      this.bytes += pcm.length;
      return [{ type: 'audio' }];
    }
    this.utterance = [];
    this.bytes = 0;
    const ear = this.ear?.mode === settings.mode ? this.ear : await this.newEar(settings);
    if (!ear) return [];
    const { silenceMs, minSpeechMs } = settings;
    ear.detector.configure({ silenceMs, minSpeechMs, maxBytes });
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
    this.decoder?.converter?.close();
  }

  /** A stream of conversion from `format`, for as long as it stays; `data` through it. */
  private async newDecoder(format: AudioFormatName, data: Buffer): Promise<Buffer> {
    this.decoder?.converter?.close();
    const converter = await inbound(format);
    // Closed while it loaded: nothing more is heard.
    if (this.closed) {
      converter?.close();
      return Buffer.alloc(0);
    }
    this.decoder = { format, converter };
    return this.converted(data);
  }

  /** `data` as 16 kHz PCM. */
  private converted(data: Buffer): Buffer {
    const converter = this.decoder?.converter;
    return converter ? converter.convert(data) : data;
  }

  /** A detector of `settings.mode` in place of the one of another mode. */
  private async newEar(settings: ListeningSettings) {
    this.drop();
    const vad = await webRtcVad(settings.mode);
    // Closed, or another frame made one, while it loaded.
    if (this.closed || this.ear) {
      vad.close();
      return this.ear;
    }
    const detector = new UtteranceDetector(vad, { ...settings, maxBytes: 0 });
    this.ear = { detector, vad, mode: settings.mode };
    return this.ear;
  }

  private drop(): void {
    this.ear?.vad.close();
    this.ear = undefined;
  }
}
