import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { BuiltRequest } from './http-request-builder.js';
import type { Tool } from './tool-definition.js';

/** At most this many results are kept, and this much text (UTF-16 code units, about 2 bytes each). */
const MAX_ENTRIES = 10_000;
const MAX_CHARS = 16 * 1024 * 1024;

/**
 * Results of HTTP tools with `cache_secs`, shared by every session of the process: the same
 * request (method, URL, headers, body) of the same definition within that time is answered
 * with what the model read the first time, without sending it. Keys are hashes: header values
 * (secrets, session variables) are never kept. Only results the model read as answers are
 * kept (HTTP 2xx), never errors.
 */
export class ResultCache {
  private readonly entries = new LRUCache<string, string>({
    max: MAX_ENTRIES,
    maxSize: MAX_CHARS,
    sizeCalculation: (text, key) => text.length + key.length,
  });
  /** A number per definition: a tool redefined (another response_query, URL, limit) starts afresh. */
  private readonly definitions = new WeakMap<Tool, number>();
  private nextDefinition = 0;

  get(key: string): string | undefined {
    return this.entries.get(key);
  }

  set(key: string, text: string, seconds: number): void {
    this.entries.set(key, text, { ttl: seconds * 1000 });
  }

  /** The key of `request` of definition `tool`: what `get` and `set` take. */
  keyOf(tool: Tool, request: BuiltRequest): string {
    let id = this.definitions.get(tool);
    if (id === undefined) this.definitions.set(tool, (id = this.nextDefinition++));
    const headers = Object.entries(request.headers)
      .map(([k, v]) => [k.toLowerCase(), v])
      .sort(([a], [b]) => (a! < b! ? -1 : a! > b! ? 1 : 0));
    return createHash('sha256')
      .update(JSON.stringify([id, request.method, request.url, headers, request.body ?? null]))
      .digest('base64url');
  }
}
