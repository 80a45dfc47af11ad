import { createHash } from 'node:crypto';
import { Polling } from '../file-watch.js';

/**
 * Reads the documents at `urls()` every `intervalMs` (one check at a time) and calls `onChange`
 * when one reads differently from the last time it was read. A document read for the first time
 * (the tools were just loaded with it) only sets what later reads are compared with; one that
 * cannot be read changes nothing: the service publishing it may be restarting, and the
 * operation it described goes on being offered.
 */
export class SpecUrlWatch {
  private readonly polling: Polling;
  /** Each URL's document as last read: a digest of its text. */
  private readonly seen = new Map<string, string>();

  constructor(
    private readonly urls: () => readonly string[],
    intervalMs: number,
    private readonly read: (url: string) => Promise<string>,
    private readonly onChange: () => Promise<void>,
  ) {
    this.polling = new Polling(intervalMs, () => this.compare());
  }

  async start(): Promise<void> {
    this.polling.start();
    await this.polling.run();
  }

  stop(): void {
    this.polling.stop();
  }

  /** Exposed for tests; the timer calls it. */
  check(): Promise<void> {
    return this.polling.run();
  }

  private async compare(): Promise<void> {
    const urls = new Set(this.urls());
    for (const url of this.seen.keys()) if (!urls.has(url)) this.seen.delete(url);
    const digests = await Promise.all(
      [...urls].map(async (url) => {
        try {
          const text = await this.read(url);
          return [url, createHash('sha256').update(text).digest('hex')] as const;
        } catch {
          return [url, undefined] as const;
        }
      }),
    );
    let changed = false;
    for (const [url, digest] of digests) {
      if (digest === undefined) continue;
      changed ||= this.seen.has(url) && this.seen.get(url) !== digest;
      this.seen.set(url, digest);
    }
    if (changed) await this.onChange();
  }
}
