import { Polling } from '../file-watch.js';

/** A server's list as it reads now (a digest of it); throws, saying why, when it cannot be read. */
export type ListRead = () => Promise<string>;

/**
 * Lists the MCP servers the tools in use take what they offer from every `intervalMs` (one round
 * at a time, the servers at once) and calls `on.changed` with the key of one whose list reads
 * differently from the last time it was read here, and of one read for the first time (the list
 * the tools were made from is not kept: `on.changed` compares with the tools themselves). For
 * servers that never say their tools changed: a stateless one (it has no session to say it on),
 * one without `listChanged`, one restarted with a new release. A server that cannot be listed
 * changes nothing: it may be restarting, and its tools go on being offered (their calls meet
 * whatever is wrong); `on.warn` is told why, once until it can be listed again.
 */
export class McpListWatch extends Polling {
  /** Each server's list as this watch last read it. */
  private readonly seen = new Map<string, string>();
  /** Servers that could not be listed the last time (said once). */
  private readonly failing = new Set<string>();

  constructor(
    private readonly servers: () => ReadonlyMap<string, ListRead>,
    intervalMs: number,
    private readonly on: {
      changed: (key: string) => Promise<void>;
      warn: (message: string) => void;
      /** Each read, by what it found. */
      read?: (outcome: 'same' | 'changed' | 'failed') => void;
    },
  ) {
    super(intervalMs);
  }

  protected async compare(): Promise<void> {
    const servers = this.servers();
    for (const map of [this.seen, this.failing])
      for (const key of map.keys()) if (!servers.has(key)) map.delete(key);
    await Promise.all(
      [...servers].map(async ([key, read]) => {
        let digest: string;
        try {
          digest = await read();
        } catch (error) {
          this.on.read?.('failed');
          if (!this.failing.has(key))
            this.on.warn(`${(error as Error).message}; its tools stay offered as it listed them`);
          this.failing.add(key);
          return;
        }
        this.failing.delete(key);
        const same = this.seen.get(key) === digest;
        this.on.read?.(same ? 'same' : 'changed');
        if (same) return;
        this.seen.set(key, digest);
        await this.on.changed(key);
      }),
    );
  }
}
