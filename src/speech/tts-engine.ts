/** One sentence to speak. */
export interface SynthesisRequest {
  text: string;
  /** Provider voice; empty ⇒ the provider's default for `language`. */
  voice: string;
  language: string;
  signal: AbortSignal;
  /** Lower is served first when synthesis is busy: the sentence's index in its turn. */
  priority?: number;
}

/** Port: text-to-speech. Audio is 16-bit little-endian mono PCM at `sampleRate`. */
export abstract class TtsEngine {
  abstract readonly provider: 'espeak' | 'openai' | 'none';
  abstract readonly sampleRate: number;
  /** Yields PCM chunks as they become available; each chunk holds whole samples. */
  abstract synthesize(request: SynthesisRequest): AsyncIterable<Buffer>;
  /** Readies the engine at start-up, so that the first sentence does not wait for it. */
  warmUp(): void {}
}

/** Ends `engine` if it has an end of its own (eSpeak's worker threads stop). */
export async function endEngine(engine: TtsEngine): Promise<void> {
  await (engine as { onModuleDestroy?: () => Promise<void> }).onModuleDestroy?.();
}

/**
 * An engine around another (a cache, a fallback): it speaks at that one's rate, as its provider,
 * and ends with it (eSpeak's worker threads stop: Nest sees the outer engine only).
 */
export abstract class WrappingTtsEngine extends TtsEngine {
  constructor(protected readonly inner: TtsEngine) {
    super();
  }

  get provider(): TtsEngine['provider'] {
    return this.inner.provider;
  }

  get sampleRate(): number {
    return this.inner.sampleRate;
  }

  override warmUp(): void {
    this.inner.warmUp();
  }

  async onModuleDestroy(): Promise<void> {
    await endEngine(this.inner);
  }
}

/** Keeps chunk boundaries on whole 16-bit samples when a stream splits one. */
export async function* wholeSamples(chunks: AsyncIterable<Uint8Array>): AsyncIterable<Buffer> {
  let carry: Buffer | undefined;
  for await (const chunk of chunks) {
    let buf = Buffer.from(chunk);
    if (carry) buf = Buffer.concat([carry, buf]);
    const even = buf.length - (buf.length % 2);
    carry = even < buf.length ? buf.subarray(even) : undefined;
    if (even > 0) yield buf.subarray(0, even);
  }
}
