/**
 * A TTS server with the bundled eSpeak NG behind it (TTS_FALLBACK=espeak): a sentence the server
 * fails (after SPEECH_RETRIES) before any of its audio came is said by eSpeak, resampled to the
 * server's rate, so that a caller hears a plainer voice rather than silence. After a failure the
 * server is left alone for a while (see Failover), then tried again. Pure: no Nest import.
 */
import { Failover, type FailoverEvents } from '../common/failover.js';
import { rateConverter } from './audio-formats.js';
import {
  endEngine,
  WrappingTtsEngine,
  type TtsEngine,
  type SynthesisRequest,
} from './tts-engine.js';

export interface FallbackEvents extends FailoverEvents {
  /** A sentence was said by eSpeak. */
  said: () => void;
}

export class FallbackTtsEngine extends WrappingTtsEngine {
  private readonly failover: Failover;

  constructor(
    primary: TtsEngine,
    private readonly fallback: TtsEngine,
    private readonly events: FallbackEvents,
    pauseMs?: number,
  ) {
    super(primary);
    this.failover = new Failover(events, pauseMs);
  }

  /** eSpeak's worker threads stop too (the server's engine has none). */
  override async onModuleDestroy(): Promise<void> {
    await super.onModuleDestroy();
    await endEngine(this.fallback);
  }

  async *synthesize(request: SynthesisRequest): AsyncIterable<Buffer> {
    if (this.failover.tryServer) {
      let began = false;
      try {
        for await (const chunk of this.inner.synthesize(request)) {
          began = true;
          yield chunk;
        }
        this.failover.served();
        return;
      } catch (error) {
        // Half a sentence said, or cut by the user: not the server's fault to mend.
        if (began || request.signal.aborted) throw error;
        this.failover.failed(error);
      }
    }
    yield* this.spoken(request);
  }

  /** The sentence said by eSpeak (in its voice for the language), at the server's rate. */
  private async *spoken(request: SynthesisRequest): AsyncIterable<Buffer> {
    const same = this.fallback.sampleRate === this.sampleRate;
    const converter = same
      ? undefined
      : await rateConverter(this.fallback.sampleRate, this.sampleRate);
    try {
      for await (const chunk of this.fallback.synthesize({ ...request, voice: '' }))
        yield converter ? converter.convert(chunk) : chunk;
      if (!request.signal.aborted) this.events.said();
    } finally {
      converter?.close();
    }
  }
}
