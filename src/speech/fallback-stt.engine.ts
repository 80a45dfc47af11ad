/**
 * A speech-to-text server with another behind it (STT_FALLBACK_BASE_URL: a hosted Whisper behind
 * a self-hosted one): an utterance the server fails (after SPEECH_RETRIES) goes to the other, so
 * that a caller is heard rather than asked to say it again. After a failure the server is left
 * alone for a while (see Failover), then tried again. With STT_FALLBACK_AFTER_MS, an utterance
 * the server has not transcribed by then goes to the other as well, the first answer taken.
 * Pure: no Nest import.
 */
import { Failover, type FailoverEvents } from '../common/failover.js';
import { hedge } from '../common/hedge.js';
import { SttEngine, type Transcribed } from './stt-engine.js';

export interface SttFallbackEvents extends FailoverEvents {
  /** An utterance was transcribed by the fallback server. */
  heard: () => void;
  /** The server had not answered within `afterMs`: the fallback is asked as well. */
  hedged?: (afterMs: number) => void;
}

export class FallbackSttEngine extends SttEngine {
  readonly provider = 'openai' as const;
  private readonly failover: Failover;

  constructor(
    private readonly server: SttEngine,
    private readonly fallback: SttEngine,
    private readonly events: SttFallbackEvents,
    pauseMs?: number,
    /** STT_FALLBACK_AFTER_MS: the fallback asked as well when the server is this slow; 0: never. */
    private readonly afterMs = 0,
  ) {
    super();
    this.failover = new Failover(events, pauseMs);
  }

  async transcribe(
    pcm: Buffer,
    language: string,
    signal: AbortSignal,
    detect?: boolean,
  ): Promise<Transcribed> {
    const byFallback = (own: AbortSignal) => this.fallback.transcribe(pcm, language, own, detect);
    if (!this.failover.tryServer) return this.heard(await byFallback(signal));
    const { value, by } = await hedge(
      (own) => this.server.transcribe(pcm, language, own, detect),
      byFallback,
      {
        afterMs: this.afterMs,
        signal,
        firstFailed: (error) => this.failover.failed(error),
        hedged: () => this.events.hedged?.(this.afterMs),
      },
    );
    if (by === 'first') this.failover.served();
    return by === 'first' ? value : this.heard(value);
  }

  private heard(transcribed: Transcribed): Transcribed {
    this.events.heard();
    return transcribed;
  }
}
