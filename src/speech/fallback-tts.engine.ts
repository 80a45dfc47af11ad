/**
 * A TTS server with the bundled eSpeak NG behind it (TTS_FALLBACK=espeak): a sentence the server
 * fails (after SPEECH_RETRIES) before any of its audio came is said by eSpeak, resampled to the
 * server's rate, so that a caller hears a plainer voice rather than silence. After a failure the
 * server is left alone for a while (every sentence would otherwise wait out its retries, or its
 * timeout, before being said), then tried again with the next sentence. Pure: no Nest import.
 */
import { rateConverter } from './audio-formats.js';
import { WrappingTtsEngine, type TtsEngine, type SynthesisRequest } from './tts-engine.js';

/** How long the server is left alone after it failed a sentence. */
export const FALLBACK_PAUSE_MS = 30_000;

export interface FallbackEvents {
  /** The server failed a sentence (`why`): eSpeak says the sentences until it is tried again. */
  fellBack: (why: string) => void;
  /** The server said a sentence again after failing. */
  recovered: () => void;
  /** A sentence was said by eSpeak. */
  said: () => void;
}

export class FallbackTtsEngine extends WrappingTtsEngine {
  /** Until when (performance.now()) the server is left alone; 0: it is in use. */
  private pausedUntil = 0;
  private failing = false;

  constructor(
    primary: TtsEngine,
    private readonly fallback: TtsEngine,
    private readonly events: FallbackEvents,
    private readonly pauseMs = FALLBACK_PAUSE_MS,
  ) {
    super(primary);
  }

  /** eSpeak's worker threads stop too (the server's engine has none). */
  override async onModuleDestroy(): Promise<void> {
    await super.onModuleDestroy();
    await (this.fallback as { onModuleDestroy?: () => Promise<void> }).onModuleDestroy?.();
  }

  async *synthesize(request: SynthesisRequest): AsyncIterable<Buffer> {
    if (performance.now() >= this.pausedUntil) {
      let began = false;
      try {
        for await (const chunk of this.inner.synthesize(request)) {
          began = true;
          yield chunk;
        }
        if (this.failing) {
          this.failing = false;
          this.events.recovered();
        }
        return;
      } catch (error) {
        // Half a sentence said, or cut by the user: not the server's fault to mend.
        if (began || request.signal.aborted) throw error;
        this.pausedUntil = performance.now() + this.pauseMs;
        this.failing = true;
        this.events.fellBack((error as Error).message);
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
