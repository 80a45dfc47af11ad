import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Shelf } from '../cluster/shelf.js';
import type { BuiltRequest } from './http-request-builder.js';
import type { Tool } from './tool-definition.js';

/** At most this many results are kept, and this much text (UTF-16 code units, about 2 bytes each). */
const MAX_ENTRIES = 10_000;
const MAX_CHARS = 16 * 1024 * 1024;
/** How often, at most, keeping a result first lets go of those whose time is up. */
const PURGE_MS = 30_000;

/**
 * Results of HTTP tools with `cache_secs`, shared by every session of the process: the same
 * request (method, URL, headers, body) of the same definition within that time is answered
 * with what the model read the first time, without sending it. Keys are hashes: header values
 * (secrets, session variables) are never kept. Only results the model read as answers are
 * kept (HTTP 2xx), never errors. A definition is told by its content, so that every process and
 * replica with the same definition has the same keys (see SharedResults).
 */
export class ResultCache {
  private readonly entries: LRUCache<string, string>;
  /** A hash per definition: a tool redefined (another response_query, URL, limit) starts afresh. */
  private readonly definitions = new WeakMap<Tool, string>();

  private purged: number;

  /** `shared`: the results kept in Redis for every process and replica, if any. */
  constructor(
    private readonly shared?: SharedResults,
    private readonly clock: { now(): number } = performance,
  ) {
    this.entries = new LRUCache<string, string>({
      max: MAX_ENTRIES,
      maxSize: MAX_CHARS,
      sizeCalculation: (text, key) => text.length + key.length,
      perf: clock,
    });
    this.purged = clock.now();
  }

  /** Results kept, those past their time that nobody has asked for since included. */
  get size(): number {
    return this.entries.size;
  }

  get(key: string): string | undefined {
    return this.entries.get(key);
  }

  set(key: string, text: string, seconds: number): void {
    // Results past their time are otherwise dropped only when asked for, or pushed out by newer ones.
    if (this.clock.now() - this.purged >= PURGE_MS) {
      this.purged = this.clock.now();
      this.entries.purgeStale();
    }
    this.entries.set(key, text, { ttl: seconds * 1000 });
  }

  /** A result kept for `key`: in this process, else in Redis (then kept here too, as long). */
  async find(key: string): Promise<string | undefined> {
    const here = this.get(key);
    if (here !== undefined || !this.shared) return here;
    const there = await this.shared.get(key);
    if (there) this.set(key, there.text, there.ms / 1000);
    return there?.text;
  }

  /** Keeps `text` for `key` `seconds` long, here and in Redis. */
  keep(key: string, text: string, seconds: number): void {
    this.set(key, text, seconds);
    this.shared?.set(key, text, seconds);
  }

  /** The key of `request` of definition `tool`: what `get` and `set` take. */
  keyOf(tool: Tool, request: BuiltRequest): string {
    let id = this.definitions.get(tool);
    if (id === undefined)
      this.definitions.set(tool, (id = hash(JSON.stringify([tool.raw, tool.specVersion ?? null]))));
    const headers = Object.entries(request.headers)
      .map(([k, v]) => [k.toLowerCase(), v])
      .sort(([a], [b]) => (a! < b! ? -1 : a! > b! ? 1 : 0));
    return hash(JSON.stringify([id, request.method, request.url, headers, request.body ?? null]));
  }
}

const hash = (text: string) => createHash('sha256').update(text).digest('base64url');

const PREFIX = 'agent-engine:tool-results:';
/** The longest result kept in Redis, in characters: one that would crowd the others out stays in its process. */
const MAX_SHARED_CHARS = 1024 * 1024;

/**
 * The results of ResultCache kept for every process and replica, for their `cache_secs`: a
 * request one process or replica sent answers the same request of another. The shelf away: a
 * miss, and nothing kept there.
 */
export class SharedResults {
  constructor(private readonly shelf: Shelf) {}

  /** The result of `key` and the milliseconds it is still kept; undefined for none. */
  async get(key: string): Promise<{ text: string; ms: number } | undefined> {
    const found = await this.shelf.entry(PREFIX + key).catch(() => undefined);
    // Kept with no time-out (never so by the engine): not taken, as it could be kept for ever.
    return found && found.ms > 0 ? { text: found.value, ms: found.ms } : undefined;
  }

  set(key: string, text: string, seconds: number): void {
    if (text.length > MAX_SHARED_CHARS) return;
    // Not waited for; the shelf away, kept here only.
    this.shelf
      .set(PREFIX + key, text, Math.max(1, Math.round(seconds * 1000)))
      .catch(() => undefined);
  }
}
