/**
 * The utterances heard out while a turn's calls ran (see Utterances) whose words are not judged
 * yet: the answer's speech waits for them, lest the agent speak over the caller — but not for
 * audio that stopped coming without an end (a client that sent no `audio_end`), nor long for a
 * slow transcription: silence is worse. Pure: no Nest import.
 */

/** Audio stopped coming this long in the middle of an utterance: the answer waits no longer. */
export const AUDIO_GONE_MS = 1000;
/** The utterance has ended: its transcription is waited for this long at most. */
export const TRANSCRIPTION_GRACE_MS = 2000;

export class HeardOutJudging {
  /** Each utterance not judged yet, settled once it is. */
  private readonly pending = new Set<Promise<void>>();
  /** Settles the utterance under way (not yet ended). */
  private settleCurrent: (() => void) | undefined;
  private lastAudio = 0;

  /** A frame of the user's audio came (noted only while an utterance heard out goes on). */
  heard(): void {
    if (this.settleCurrent) this.lastAudio = performance.now();
  }

  /** An utterance that is heard out begins. */
  begin(): void {
    this.lastAudio = performance.now();
    let settle!: () => void;
    const judged = new Promise<void>((resolve) => (settle = resolve));
    const watch = setInterval(() => {
      if (this.settleCurrent === settle && performance.now() - this.lastAudio > AUDIO_GONE_MS)
        this.drop();
    }, AUDIO_GONE_MS / 4);
    watch.unref();
    this.settleCurrent = settle;
    const held: Promise<void> = judged.finally(() => {
      clearInterval(watch);
      this.pending.delete(held);
    });
    this.pending.add(held);
  }

  /**
   * The utterance under way has ended and is being transcribed: the function that settles it once
   * its words are judged (it settles by itself after TRANSCRIPTION_GRACE_MS). A no-op when it was
   * not heard out.
   */
  ended(): () => void {
    const settle = this.settleCurrent;
    this.settleCurrent = undefined;
    if (!settle) return () => {};
    const grace = setTimeout(settle, TRANSCRIPTION_GRACE_MS);
    grace.unref();
    return () => {
      clearTimeout(grace);
      settle();
    };
  }

  /** The utterance under way is dropped (audio refused, no speech, the connection closed). */
  drop(): void {
    this.settleCurrent?.();
    this.settleCurrent = undefined;
  }

  /** Settles once every utterance heard out is judged; undefined when none waits. */
  get until(): Promise<void> | undefined {
    if (this.pending.size === 0) return undefined;
    return Promise.all(this.pending).then(() => undefined);
  }
}
