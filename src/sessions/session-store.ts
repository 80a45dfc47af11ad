import type { SessionsFanout } from './sessions-fanout.js';

/** Messages to every engine process of every replica sharing the store (Redis's pub/sub). */
export interface Broadcast {
  /** Sends `message` on `channel` to every process subscribed to it, this one's too. */
  publish(channel: string, message: string): Promise<void>;
  /** Calls `listener` with every message on `channel` from now on. */
  subscribe(channel: string, listener: (message: string) => void): Promise<void>;
}

/** Lua scripts run atomically on the Redis every replica shares (a tool's slots). */
export interface SharedScripts {
  run(script: string, keys: string[], args: string[]): Promise<unknown>;
}
/** A stored session, opaque to the store (JSON written by the orchestrator). */
export interface Claim {
  /** Hash of the session's resume token. */
  key: string;
  /** The connection taking the session over. */
  owner: string;
  ttlSecs: number;
}

export interface Save extends Claim {
  data: string;
}

/**
 * Where sessions are kept so that a client can resume one after a disconnect (port). A record
 * belongs to the connection that last claimed or saved it: a save by any other is refused, so
 * a connection that lost its session to a newer one cannot overwrite it.
 */
export abstract class SessionStore {
  abstract readonly kind: 'memory' | 'redis';
  /** Read by other processes (Redis, the primary of ENGINE_PROCESSES): saved after each turn too. */
  abstract readonly shared: boolean;
  /** False while the store cannot be reached (sessions then start afresh). */
  abstract readonly connected: boolean;
  /** Takes the record over for `owner` and restarts its time to live; undefined when unknown or expired. */
  abstract claim(claim: Claim): Promise<string | undefined>;
  /** Writes the record unless another owner holds it; false when refused. */
  abstract save(save: Save): Promise<boolean>;
  /** Deletes the record unless another owner holds it: the session can no longer be resumed. */
  abstract forget(claim: Omit<Claim, 'ttlSecs'>): Promise<void>;
  /** Releases connections and timers. */
  abstract close(): Promise<void>;
  /** With a store every replica shares: `/api/sessions` across all of them. */
  readonly fanout: SessionsFanout | undefined = undefined;
  /** With a store every replica shares: news for all of them (a tool's circuit). */
  readonly broadcast: Broadcast | undefined = undefined;
  /** With a store every replica shares: state all of them keep together (a tool's slots). */
  readonly scripts: SharedScripts | undefined = undefined;
}

interface Entry {
  owner: string;
  data: string;
  expires: number;
}

/** The most saved sessions kept in the process, in characters of their JSON (128 to 256 MiB). */
export const MEMORY_STORE_MAX_CHARS = 128 * 1024 * 1024;

/**
 * Sessions kept in this process: a reconnect must reach the same process to resume. Past
 * `maxChars` of saved JSON, the sessions saved longest ago are let go first (their tokens then
 * start afresh), so that many short connections cannot take the engine's memory.
 */
export class MemorySessionStore extends SessionStore {
  readonly kind = 'memory' as const;
  readonly shared = false;
  readonly connected = true;
  /** In the order they were last saved, oldest first. */
  private readonly entries = new Map<string, Entry>();
  private chars = 0;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly now: () => number = Date.now,
    sweepMs = 30_000,
    private readonly maxChars = MEMORY_STORE_MAX_CHARS,
  ) {
    super();
    // Expired sessions are dropped even if nobody asks for them again.
    this.sweeper = setInterval(() => this.sweep(), sweepMs);
    this.sweeper.unref();
  }

  get size(): number {
    return this.entries.size;
  }

  private live(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry && entry.expires <= this.now()) {
      this.drop(key, entry);
      return undefined;
    }
    return entry;
  }

  claim({ key, owner, ttlSecs }: Claim): Promise<string | undefined> {
    const entry = this.live(key);
    if (entry) Object.assign(entry, { owner, expires: this.now() + ttlSecs * 1000 });
    return Promise.resolve(entry?.data);
  }

  save({ key, owner, data, ttlSecs }: Save): Promise<boolean> {
    const entry = this.live(key);
    if (entry && entry.owner !== owner) return Promise.resolve(false);
    if (entry) this.drop(key, entry);
    this.entries.set(key, { owner, data, expires: this.now() + ttlSecs * 1000 });
    this.chars += data.length;
    for (const [oldest, kept] of this.entries) {
      if (this.chars <= this.maxChars || oldest === key) break;
      this.drop(oldest, kept);
    }
    return Promise.resolve(true);
  }

  forget({ key, owner }: Omit<Claim, 'ttlSecs'>): Promise<void> {
    const entry = this.live(key);
    if (entry && entry.owner === owner) this.drop(key, entry);
    return Promise.resolve();
  }

  private drop(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.chars -= entry.data.length;
  }

  sweep(): void {
    for (const key of this.entries.keys()) this.live(key);
  }

  close(): Promise<void> {
    clearInterval(this.sweeper);
    this.entries.clear();
    this.chars = 0;
    return Promise.resolve();
  }
}
