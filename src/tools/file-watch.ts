import { stat } from 'node:fs/promises';

/**
 * What the files are now: changes when one is written, replaced (an editor's rename, a
 * Kubernetes ConfigMap's symlink swap: `stat` follows links), created or removed.
 */
export async function filesSignature(paths: readonly string[]): Promise<string> {
  const parts = await Promise.all(
    paths.map(async (path) => {
      try {
        const s = await stat(path);
        return `${s.ino}:${s.size}:${s.mtimeMs}`;
      } catch {
        return 'missing';
      }
    }),
  );
  return parts.join('|');
}

/**
 * Checks files every `intervalMs` and calls `onChange` when any has changed (one call at a
 * time). The files are `paths()`, asked again after each change: what a change reads may name
 * other files.
 */
export class FileWatch {
  private timer: NodeJS.Timeout | undefined;
  private signature = '';
  private checking = false;

  constructor(
    private readonly paths: () => readonly string[],
    private readonly intervalMs: number,
    private readonly onChange: () => Promise<void>,
  ) {}

  async start(): Promise<void> {
    this.signature = await filesSignature(this.paths());
    this.timer = setInterval(() => void this.check(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Exposed for tests; the timer calls it. */
  async check(): Promise<void> {
    if (this.checking || this.timer === undefined) return;
    this.checking = true;
    try {
      const watched = this.paths();
      const before = await filesSignature(watched);
      if (before === this.signature) return;
      await this.onChange();
      // Written again while it was read: the next check reads it again.
      const after = await filesSignature(watched);
      this.signature = after === before ? await filesSignature(this.paths()) : '';
    } finally {
      this.checking = false;
    }
  }
}
