import type { ClusterMessage, ShelfName } from './messages.js';

/**
 * Entries with a time to live in this process's memory: the primary's, for the engine processes
 * without Redis (OAuth 2.0 tokens, `cache_secs` results, lists of background results; the other
 * side of shelf.ts's Shelf). Past `maxEntries` or `maxChars` (keys and values, in UTF-16 code
 * units), the entries set longest ago go first.
 */
export class MemoryShelf {
  private readonly entries = new Map<string, { value: string; expires: number }>();
  private chars = 0;

  constructor(
    private readonly maxEntries = 10_000,
    private readonly maxChars = Infinity,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** The entry of `key` and the milliseconds it is still kept; undefined for none. */
  entry(key: string): { value: string; ms: number } | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    const ms = entry.expires - this.now();
    if (ms > 0) return { value: entry.value, ms };
    this.delete(key);
    return undefined;
  }

  get(key: string): string | undefined {
    return this.entry(key)?.value;
  }

  set(key: string, value: string, ms: number): void {
    this.delete(key);
    if (key.length + value.length > this.maxChars) return;
    this.entries.set(key, { value, expires: this.now() + ms });
    this.chars += key.length + value.length;
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries && this.chars <= this.maxChars) break;
      this.delete(oldest);
    }
  }

  /** Appends `value` to the JSON array of `key` (a new one if none), kept `ms` from now. */
  append(key: string, value: string, ms: number): void {
    const kept = this.get(key);
    let list: unknown[] = [];
    try {
      const parsed: unknown = kept === undefined ? [] : JSON.parse(kept);
      if (Array.isArray(parsed)) list = parsed;
    } catch {
      // not a list: started afresh
    }
    list.push(value);
    this.set(key, JSON.stringify(list), ms);
  }

  /** The entry of `key`, deleted (with the milliseconds it had left). */
  take(key: string): { value: string; ms: number } | undefined {
    const entry = this.entry(key);
    this.delete(key);
    return entry;
  }

  /** Deletes the token entry of `key` if its digest (its JSON's `h`) is still `digest`. */
  drop(key: string, digest: string): void {
    const value = this.get(key);
    if (value === undefined) return;
    try {
      if ((JSON.parse(value) as { h?: unknown }).h !== digest) return;
    } catch {
      // not an entry of ours: dropped
    }
    this.delete(key);
  }

  /** Drops the entries whose time is up, which nobody may ask for again. */
  sweep(): void {
    const now = this.now();
    for (const [key, entry] of this.entries) if (entry.expires <= now) this.delete(key);
  }

  private delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.chars -= key.length + entry.value.length;
  }
}

/**
 * The primary's shelves, one a kind of state (OAuth 2.0 tokens, encrypted; `cache_secs` results;
 * background calls' results waiting for their resumed session).
 */
export function primaryShelves(): Record<ShelfName, MemoryShelf> {
  return {
    tokens: new MemoryShelf(),
    results: new MemoryShelf(10_000, 16 * 1024 * 1024),
    background: new MemoryShelf(10_000, 16 * 1024 * 1024),
  };
}

/** Answers a process's shelf `message` (`reply`: to that process); false for another kind. */
export function answerShelf(
  shelves: Record<ShelfName, MemoryShelf>,
  message: ClusterMessage,
  reply: (message: ClusterMessage) => void,
): boolean {
  if (message.kind === 'engine.shelf.get' || message.kind === 'engine.shelf.take') {
    const shelf = shelves[message.shelf];
    const entry =
      message.kind === 'engine.shelf.get' ? shelf?.entry(message.key) : shelf?.take(message.key);
    const { id } = message;
    reply({ kind: 'engine.shelf.got', id, value: entry?.value ?? null, ms: entry?.ms ?? 0 });
  } else if (message.kind === 'engine.shelf.set')
    shelves[message.shelf]?.set(message.key, message.value, message.ms);
  else if (message.kind === 'engine.shelf.drop')
    shelves[message.shelf]?.drop(message.key, message.digest);
  else if (message.kind === 'engine.shelf.append')
    shelves[message.shelf]?.append(message.key, message.value, message.ms);
  else return false;
  return true;
}
