import { createHash } from 'node:crypto';
import { Polling } from '../file-watch.js';
import type { SpecRead, SpecValidators } from './spec-source.js';

/**
 * Reads the documents at `urls()` every `intervalMs` (one check at a time) and calls `onChange`
 * when one reads differently from the last time it was read (asked for with the validators its
 * server gave, so that an unchanged one costs a 304). A document read for the first time
 * (the tools were just loaded with it) only sets what later reads are compared with; one that
 * cannot be read changes nothing: the service publishing it may be restarting, and the
 * operation it described goes on being offered.
 */
export class SpecUrlWatch {
  private readonly polling: Polling;
  /** Each URL's document as last read: a digest of its text, and its server's validators. */
  private readonly seen = new Map<string, { digest: string; validators: SpecValidators }>();

  /** `read` asks for the document unless it is still the one `validators` identify. */
  constructor(
    private readonly urls: () => readonly string[],
    intervalMs: number,
    private readonly read: (url: string, validators?: SpecValidators) => Promise<SpecRead>,
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
    const reads = await Promise.all(
      [...urls].map(async (url) => {
        try {
          return [url, await this.read(url, this.seen.get(url)?.validators)] as const;
        } catch {
          return [url, { unchanged: true } as const] as const;
        }
      }),
    );
    let changed = false;
    for (const [url, read] of reads) {
      if ('unchanged' in read) continue;
      const digest = createHash('sha256').update(read.text).digest('hex');
      changed ||= this.seen.has(url) && this.seen.get(url)!.digest !== digest;
      this.seen.set(url, { digest, validators: read.validators });
    }
    if (changed) await this.onChange();
  }
}
