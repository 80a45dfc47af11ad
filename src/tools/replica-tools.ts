import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { SessionStore } from '../sessions/session-store.js';
import type { Claim } from './tool-set-version.js';

const KEY = 'agent-engine:tools:override';
const CHANNEL = 'agent-engine:tools';
/** How long the override outlives the last replica holding it; renewed a third of it apart. */
const HELD_MS = 60_000;
/** What `parsed` answers for definitions stored that are not JSON. */
const UNREADABLE = Symbol('unreadable');

/**
 * Stores the override (its id and definitions) and tells the replicas, atomically: {1}. With
 * ARGV[6] = '1', only if the override stored is still the one whose version is ARGV[7] ('' for
 * none; see tool-set-version.ts); else {0, the definitions stored, or ''}.
 */
const PUBLISH = `if ARGV[6] == '1' then
  local stored = redis.call('HGET', KEYS[1], 'definitions')
  local version = stored and redis.sha1hex(stored) or ''
  if version ~= ARGV[7] then return {0, stored or ''} end
end
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'definitions', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PUBLISH', ARGV[4], ARGV[5])
return {1}`;
const READ = `return redis.call('HMGET', KEYS[1], 'id', 'definitions')`;
/** Keeps the override while a replica holds it: one another replaced is not kept alive. */
const RENEW = `if redis.call('HGET', KEYS[1], 'id') ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;

/**
 * The override of `POST /api/tools` across replicas sharing a Redis session store: stored in
 * Redis and announced, so that every replica installs it, and a replica started later (a
 * rolling update, a scale-up) takes it before it serves. It lives while a replica holds it: each
 * renews it, and once none runs for a minute it is gone, and a restart brings the tools file
 * back, as with one replica. Without Redis, nothing is shared (the engine's own processes share
 * the override through the primary).
 */
@Injectable()
export class ReplicaTools implements OnModuleDestroy {
  private readonly logger = new Logger('ReplicaTools');
  private readonly id = randomUUID();
  /** The id of the override this replica holds, renewed while it does. */
  private held: string | undefined;
  private unreadableSaid = -Infinity;
  private readonly renewal: NodeJS.Timeout | undefined;

  constructor(private readonly store: SessionStore) {
    if (!store.scripts) return;
    this.renewal = setInterval(() => void this.renew(), HELD_MS / 3);
    this.renewal.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.renewal);
  }

  /** Whether the replicas share an override (a Redis session store), even while it is away. */
  get shared(): boolean {
    return this.store.scripts !== undefined;
  }

  /** Calls `changed` each time another process or replica stores an override, from now on. */
  onOverride(changed: () => Promise<unknown>): void {
    this.store.broadcast
      ?.subscribe(CHANNEL, (from) => {
        if (from === this.id) return;
        changed().catch((error: Error) =>
          this.logger.error(`another replica's tools were not installed: ${error.message}`),
        );
      })
      .catch((error: Error) =>
        this.logger.warn(`tools posted to other replicas are not heard: ${error.message}`),
      );
  }

  /**
   * The override Redis holds now, the latest, whichever word of a change came first: `held` when
   * this process holds it already; else its definitions, and `hold` to call once they are
   * installed. Undefined when Redis holds none or cannot be asked.
   */
  async latest(): Promise<'held' | { definitions: unknown; hold: () => void } | undefined> {
    const stored = await this.read();
    if (!stored) return undefined;
    if (stored.id === this.held) return 'held';
    return { definitions: stored.definitions, hold: () => (this.held = stored.id) };
  }

  /**
   * Stores `definitions` for every replica and tells them; with `basedOn`, only if the override
   * stored is still the one of that version ('' for none). Undefined without Redis, or while it is
   * away (the other replicas keep their tools).
   */
  async publish(definitions: unknown, basedOn?: string): Promise<Claim | undefined> {
    const { scripts } = this.store;
    if (!scripts) return undefined;
    const id = randomUUID();
    const condition = basedOn === undefined ? ['0', ''] : ['1', basedOn];
    let answer: unknown;
    try {
      answer = await scripts.run(
        PUBLISH,
        [KEY],
        [id, JSON.stringify(definitions), String(HELD_MS), CHANNEL, this.id, ...condition],
      );
    } catch (error) {
      this.logger.warn(
        `Redis unavailable: the other replicas keep their tools (${(error as Error).message})`,
      );
      return undefined;
    }
    if (Array.isArray(answer) && answer[0] === 0) {
      const stored: unknown = answer[1];
      if (typeof stored !== 'string' || stored === '')
        return { outcome: 'conflict', definitions: null };
      const held = this.parsed(stored);
      // Not JSON (damaged, or written by hand): no change can be based on it; it is replaced.
      if (held === UNREADABLE) return this.publish(definitions);
      return { outcome: 'conflict', definitions: held };
    }
    this.held = id;
    return { outcome: 'claimed' };
  }

  /** The definitions of the override Redis holds now; undefined for none, or Redis away. */
  async stored(): Promise<unknown> {
    return (await this.read())?.definitions;
  }

  /** The override the replicas hold, at start-up; null for none (or Redis away). */
  async current(): Promise<unknown> {
    const stored = await this.read();
    if (!stored) return null;
    this.held = stored.id;
    return stored.definitions;
  }

  /**
   * Installs with `install`, at start-up, the override the replicas hold, if any: one that
   * cannot be used here (a secret this replica lacks) is logged, and the tools file applies.
   */
  async installCurrent(install: (definitions: unknown) => Promise<void>): Promise<void> {
    const definitions = await this.current();
    if (definitions === null) return;
    await install(definitions).catch((error: Error) => {
      this.held = undefined;
      this.logger.error(
        `the tools the other replicas hold cannot be used here; the tools file applies: ${error.message}`,
      );
    });
  }

  private async read(): Promise<{ id: string; definitions: unknown } | undefined> {
    const found = await this.store.scripts?.run(READ, [KEY], []).catch(() => undefined);
    if (!Array.isArray(found) || typeof found[0] !== 'string' || typeof found[1] !== 'string')
      return undefined;
    const definitions = this.parsed(found[1]);
    return definitions === UNREADABLE ? undefined : { id: found[0], definitions };
  }

  /** The stored definitions' JSON, read; UNREADABLE (said once a minute) when it is not JSON. */
  private parsed(stored: string): unknown {
    try {
      return JSON.parse(stored) as unknown;
    } catch (error) {
      if (Date.now() - this.unreadableSaid >= 60_000) {
        this.unreadableSaid = Date.now();
        this.logger.warn(
          `the tools the replicas share (Redis key ${KEY}) are not JSON, so this replica keeps its own until a change replaces them: ${(error as Error).message}`,
        );
      }
      return UNREADABLE;
    }
  }

  private async renew(): Promise<void> {
    if (!this.held) return;
    await this.store.scripts?.run(RENEW, [KEY], [this.held, String(HELD_MS)]).catch(() => 0);
  }
}
