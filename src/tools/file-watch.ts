import type { Stats } from 'node:fs';
import { stat } from 'node:fs/promises';

/** What tells two versions of a file apart: its inode, size and modification time. */
export const fileState = (s: Stats) => `${s.ino}:${s.size}:${s.mtimeMs}`;

/**
 * What the files are now: changes when one is written, replaced (an editor's rename, a
 * Kubernetes ConfigMap's symlink swap: `stat` follows links), created or removed.
 */
export async function filesSignature(paths: readonly string[]): Promise<string> {
  const parts = await Promise.all(
    paths.map(async (path) => {
      try {
        return fileState(await stat(path));
      } catch {
        return 'missing';
      }
    }),
  );
  return parts.join('|');
}

/**
 * Compares every `intervalMs`, one run at a time (a run still going when the next is due makes it
 * skip), until stopped. What the watches below share.
 */
export abstract class Polling {
  private timer: NodeJS.Timeout | undefined;
  private running = false;

  constructor(private readonly intervalMs: number) {}

  /** Takes what the comparisons start from (`baseline`), then compares every interval. */
  async start(): Promise<void> {
    await this.baseline();
    this.timer = setInterval(() => void this.check(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One comparison now, unless stopped or one is running. Exposed for tests; the timer calls it. */
  async check(): Promise<void> {
    if (this.running || this.timer === undefined) return;
    this.running = true;
    try {
      await this.compare();
    } finally {
      this.running = false;
    }
  }

  protected abstract compare(): Promise<void>;

  /** What the first comparison compares with, read at start. */
  protected async baseline(): Promise<void> {}
}

/**
 * Checks files every `intervalMs` and calls `onChange` when any has changed (one call at a
 * time). The files are `paths()`, asked again after each change: what a change reads may name
 * other files.
 */
export class FileWatch extends Polling {
  private signature = '';

  constructor(
    private readonly paths: () => readonly string[],
    intervalMs: number,
    private readonly onChange: () => Promise<void>,
  ) {
    super(intervalMs);
  }

  protected override async baseline(): Promise<void> {
    this.signature = await filesSignature(this.paths());
  }

  protected async compare(): Promise<void> {
    const watched = this.paths();
    const before = await filesSignature(watched);
    if (before === this.signature) return;
    await this.onChange();
    // The next checks compare with the files the read names (a file added, one gone), taken
    // before making sure that nothing changed while it ran: a change made after this signature
    // is seen by the next check, one made before it by this one (the next check reads again).
    const next = await filesSignature(this.paths());
    const after = await filesSignature(watched);
    this.signature = after === before ? next : '';
  }
}
