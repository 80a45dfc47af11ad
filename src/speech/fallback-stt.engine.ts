/**
 * A speech-to-text server with another behind it (STT_FALLBACK_BASE_URL: a hosted Whisper behind
 * a self-hosted one): an utterance the server fails (after SPEECH_RETRIES) goes to the other, so
 * that a caller is heard rather than asked to say it again. After a failure the server is left
 * alone for a while (see Failover), then tried again. Pure: no Nest import.
 */
import { Failover, type FailoverEvents } from '../common/failover.js';
import { SttEngine, type Transcribed } from './stt-engine.js';

export interface SttFallbackEvents extends FailoverEvents {
  /** An utterance was transcribed by the fallback server. */
  heard: () => void;
}

export class FallbackSttEngine extends SttEngine {
  readonly provider = 'openai' as const;
  private readonly failover: Failover;

  constructor(
    private readonly server: SttEngine,
    private readonly fallback: SttEngine,
    private readonly events: SttFallbackEvents,
    pauseMs?: number,
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
    if (this.failover.tryServer)
      try {
        const heard = await this.server.transcribe(pcm, language, signal, detect);
        this.failover.served();
        return heard;
      } catch (error) {
        if (signal.aborted) throw error;
        this.failover.failed(error);
      }
    const heard = await this.fallback.transcribe(pcm, language, signal, detect);
    this.events.heard();
    return heard;
  }
}
