/**
 * Speech of the phrases an agent says again and again — a call's greeting, "One moment.", "Are
 * you still there?", a confirmation prompt — synthesised once and kept (SPEECH_CACHE_MB): said
 * again, its audio starts at once and costs the TTS server nothing. A sentence is kept from its
 * second synthesis on, so that the answers' own sentences, said once, do not push the phrases
 * out. Pure: no Nest import.
 */
import { LRUCache } from 'lru-cache';
import { WrappingTtsEngine, type TtsEngine, type SynthesisRequest } from './tts-engine.js';

/** How many sentences are remembered as seen once, waiting for a second synthesis. */
const SEEN = 4096;

export class CachedTtsEngine extends WrappingTtsEngine {
  private readonly audio: LRUCache<string, Buffer>;
  private readonly seen = new LRUCache<string, true>({ max: SEEN });

  constructor(
    inner: TtsEngine,
    maxBytes: number,
    /** A sentence said from the cache. */
    private readonly onHit: () => void = () => undefined,
  ) {
    super(inner);
    this.audio = new LRUCache<string, Buffer>({
      maxSize: maxBytes,
      // No one sentence takes more than an eighth of the cache.
      maxEntrySize: Math.max(1, Math.floor(maxBytes / 8)),
      sizeCalculation: (pcm) => Math.max(1, pcm.length),
    });
  }

  async *synthesize(request: SynthesisRequest): AsyncIterable<Buffer> {
    const key = `${request.voice}\u0000${request.language}\u0000${request.text}`;
    const kept = this.audio.get(key);
    if (kept) {
      this.onHit();
      yield kept;
      return;
    }
    const keep = this.seen.has(key);
    this.seen.set(key, true);
    const chunks: Buffer[] = [];
    for await (const chunk of this.inner.synthesize(request)) {
      if (keep) chunks.push(chunk);
      yield chunk;
    }
    // Only a synthesis heard through to its end: a cut or failed one is not the phrase.
    if (keep && !request.signal.aborted && chunks.length > 0)
      this.audio.set(key, Buffer.concat(chunks));
  }
}
