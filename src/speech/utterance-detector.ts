/**
 * Where an utterance begins and ends in a continuous stream of the user's audio (PCM s16le,
 * 16 kHz, mono), from a voice activity detector's verdict on each 20 ms frame: speech starts once
 * enough of it was heard (a cough or a click is not a barge-in), and the utterance ends after
 * enough silence. Silence before speech is dropped but for a short lead, so that no minute of a
 * quiet line is ever sent for transcription. Pure: no Nest import.
 */

/** Samples of one frame: 20 ms at 16 kHz, a frame size WebRTC's VAD takes. */
export const FRAME_SAMPLES = 320;
const FRAME_BYTES = FRAME_SAMPLES * 2;
const FRAME_MS = 20;
/** Audio kept from before the speech was sure, so that the first syllable is not cut. */
const LEAD_MS = 300;

/** Port: whether one frame holds speech. */
export interface VoiceActivity {
  voiced(frame: Int16Array): boolean;
}

export interface DetectorSettings {
  /** Silence after speech that ends the utterance. */
  silenceMs: number;
  /** Speech, net of the silence between, after which the user counts as speaking. */
  minSpeechMs: number;
  /** The longest utterance (STT_MAX_SECONDS): one that reaches it ends there. */
  maxBytes: number;
}

export type Detected =
  | { type: 'speech_started' }
  /**
   * `cut`: it reached the longest an utterance may be, not a silence. `silenceMs`: the silence at
   * its end, heard before the utterance was known to be over (in a live stream, how long ago the
   * user stopped speaking).
   */
  | { type: 'utterance'; pcm: Buffer; cut: boolean; silenceMs: number };

export class UtteranceDetector {
  private pending = Buffer.alloc(0);
  /** While no one speaks: the latest frames (the lead, and the speech not yet sure). */
  private recent: Buffer[] = [];
  /** Net voiced frames of the speech not yet sure. */
  private evidence = 0;
  private utterance: Buffer[] | undefined;
  private bytes = 0;
  private silentFrames = 0;

  constructor(
    private readonly vad: VoiceActivity,
    private settings: DetectorSettings,
  ) {}

  /** The session's settings changed. */
  configure(settings: DetectorSettings): void {
    this.settings = settings;
  }

  get speaking(): boolean {
    return this.utterance !== undefined;
  }

  /** Takes the next audio; says where speech began and where an utterance ended in it. */
  push(pcm: Buffer): Detected[] {
    const events: Detected[] = [];
    const data = this.pending.length > 0 ? Buffer.concat([this.pending, pcm]) : pcm;
    let at = 0;
    for (; at + FRAME_BYTES <= data.length; at += FRAME_BYTES) {
      // A copy: the frame outlives this call (kept in the utterance), `data` may be the caller's.
      const frame = Buffer.from(data.subarray(at, at + FRAME_BYTES));
      const voiced = this.vad.voiced(new Int16Array(frame.buffer, frame.byteOffset, FRAME_SAMPLES));
      const event = this.utterance ? this.during(frame, voiced) : this.before(frame, voiced);
      if (event) events.push(event);
    }
    this.pending = Buffer.from(data.subarray(at));
    return events;
  }

  /** The client says the utterance is over (`audio_end`): the speech so far, if any. */
  end(): Buffer | undefined {
    const utterance = this.utterance;
    this.reset();
    return utterance && Buffer.concat(utterance);
  }

  private before(frame: Buffer, voiced: boolean): Detected | undefined {
    this.recent.push(frame);
    this.evidence = voiced ? this.evidence + 1 : Math.max(0, this.evidence - 1);
    if (this.evidence * FRAME_MS >= this.settings.minSpeechMs) {
      this.utterance = this.recent;
      this.bytes = this.recent.length * FRAME_BYTES;
      this.recent = [];
      this.evidence = 0;
      this.silentFrames = 0;
      return { type: 'speech_started' };
    }
    // The lead, and as much as the speech not yet sure may span (twice its minimum).
    const keep = Math.ceil((LEAD_MS + 2 * this.settings.minSpeechMs) / FRAME_MS);
    if (this.recent.length > keep) this.recent.splice(0, this.recent.length - keep);
    return undefined;
  }

  private during(frame: Buffer, voiced: boolean): Detected | undefined {
    this.utterance!.push(frame);
    this.bytes += FRAME_BYTES;
    this.silentFrames = voiced ? 0 : this.silentFrames + 1;
    const silent = this.silentFrames * FRAME_MS >= this.settings.silenceMs;
    const full = this.bytes + FRAME_BYTES > this.settings.maxBytes;
    if (!silent && !full) return undefined;
    const pcm = Buffer.concat(this.utterance!);
    const silenceMs = this.silentFrames * FRAME_MS;
    this.reset();
    return { type: 'utterance', pcm, cut: !silent, silenceMs };
  }

  private reset(): void {
    this.utterance = undefined;
    this.recent = [];
    this.evidence = 0;
    this.bytes = 0;
    this.silentFrames = 0;
  }
}
