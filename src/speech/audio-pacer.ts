import { setImmediate as setImmediatePromise, setTimeout as sleep } from 'node:timers/promises';
import type { SpeechEvent } from './speak-options.js';

type Audio = Extract<SpeechEvent, { type: 'audio' }>;

/**
 * A turn's audio handed to the client in `chunkBytes` pieces at playback speed, at most `leadMs`
 * ahead of it (undefined: as fast as it comes), so that a barge-in drops what the user has not
 * heard yet; and when the client will have played what was sent: it plays the audio as it comes,
 * at its speed, pausing only while none has come. Pure: no Nest import.
 */
export class AudioPacer {
  private sentMs = 0;
  private startedAt = 0;
  private seq = 0;
  /** When the client will have played all the audio sent so far (`performance.now()`). */
  playedUntil = 0;

  constructor(
    private readonly sampleRate: number,
    private readonly chunkBytes: number,
    private readonly leadMs: number | undefined,
    private readonly signal: AbortSignal,
    private readonly out: (audio: Audio) => void,
    /** The turn's first audio is being sent. */
    private readonly onFirst?: () => void,
  ) {}

  /** Whether audio sent is still to be played. */
  get playing(): boolean {
    return this.playedUntil > performance.now();
  }

  /** Sends `chunk` a piece at a time, until it is all sent, `stop()` is true or the turn is cut. */
  async send(chunk: Buffer, stop: () => boolean): Promise<void> {
    const { signal, leadMs } = this;
    for (let at = 0; at < chunk.length && !signal.aborted; at += this.chunkBytes) {
      if (this.startedAt === 0) this.startedAt = performance.now();
      const ahead = this.sentMs - (performance.now() - this.startedAt);
      // Ahead of playback: wait. Otherwise (the first lead, or behind after the process was
      // stalled) let the event loop read first, so that a barge-in already received stops the
      // audio here rather than after a burst of everything due.
      if (leadMs !== undefined && ahead > leadMs)
        await sleep(ahead - leadMs, undefined, { signal }).catch(() => undefined);
      else await setImmediatePromise();
      if (signal.aborted || stop()) return;
      const data = chunk.subarray(at, at + this.chunkBytes);
      if (this.seq === 0) this.onFirst?.();
      const ms = (data.length / 2 / this.sampleRate) * 1000;
      this.sentMs += ms;
      this.playedUntil = Math.max(this.playedUntil, performance.now()) + ms;
      this.out({
        type: 'audio',
        seq: this.seq++,
        format: 'pcm_s16le',
        sample_rate: this.sampleRate,
        channels: 1,
        data,
      });
    }
  }

  /** The client has dropped the audio it had not played: what is sent next plays at once. */
  cleared(): void {
    const now = performance.now();
    this.playedUntil = now;
    if (this.startedAt !== 0) this.sentMs = now - this.startedAt;
  }
}
