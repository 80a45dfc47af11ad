/**
 * A tool's `max_concurrency` across the engine: with a Redis session store, across every process
 * and replica sharing it, by a semaphore in Redis (a sorted set of the slots held, each with a
 * lease the holder renews while its call runs, so that a crashed holder's slot frees itself;
 * callers wait by asking again, a little longer apart each time); without, across the engine's
 * processes (ENGINE_PROCESSES), by the primary (see slot-table.ts). Pure but for the scripts and
 * the link they are given: no Nest import.
 */
import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ClusterLink } from '../cluster/cluster-link.js';
import type { SharedScripts } from '../sessions/session-store.js';
import type { NotRun } from './tool-slots.js';

/** A tool's limit, and when and why a call waiting for a slot stops waiting. */
export interface Limited {
  name: string;
  target: string;
  max: number;
}
export interface SlotWait {
  signal: AbortSignal;
  /** performance.now() at which it gives up. */
  deadline: number;
}

/** Slots of tools' limits held across more than this process. */
export interface EngineSlots {
  /**
   * Runs `call` once one of `max` slots of tool `name` (whose requests go to `target`) is free
   * across the engine; `notRun` answers when none was before the deadline or the signal aborted.
   */
  run<T>(
    tool: Limited,
    wait: SlotWait,
    call: () => Promise<T>,
    notRun: (why: NotRun) => T,
  ): Promise<T>;
}

/** A limit's name: a tool redefined with another target or maximum counts its slots afresh. */
const slotKey = ({ name, target, max }: Limited) =>
  `${name}:${createHash('sha256').update(`${max} ${target}`).digest('hex').slice(0, 16)}`;

/** The engine's processes' slots, kept by the primary: granted in the order asked for. */
export class ClusterSlots implements EngineSlots {
  constructor(private readonly link: ClusterLink) {}

  async run<T>(
    tool: Limited,
    wait: SlotWait,
    call: () => Promise<T>,
    notRun: (why: NotRun) => T,
  ): Promise<T> {
    const slot = this.link.slot(slotKey(tool), tool.max);
    if (!slot) return call();
    let timer: NodeJS.Timeout | undefined;
    let onAbort = () => undefined as void;
    const gaveUp = new Promise<NotRun>((resolve) => {
      timer = setTimeout(
        () => resolve('timed_out'),
        Math.max(0, wait.deadline - performance.now()),
      );
      onAbort = () => resolve('cancelled');
      wait.signal.addEventListener('abort', onAbort, { once: true });
      if (wait.signal.aborted) onAbort();
    });
    const outcome = await Promise.race([slot.granted.then(() => undefined), gaveUp]);
    clearTimeout(timer);
    wait.signal.removeEventListener('abort', onAbort);
    if (outcome) {
      slot.release();
      return notRun(outcome);
    }
    try {
      return await call();
    } finally {
      slot.release();
    }
  }
}

const PREFIX = 'agent-engine:tool-slots:';

/** Redis's own clock (TIME), so that replicas whose clocks differ still agree on leases. */
const NOW = `local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)`;

/** Takes a slot for ARGV[1] if fewer than ARGV[2] are held: 1, else 0. ARGV[3]: the lease, ms. */
const ACQUIRE = `${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1`;

/** Extends the lease of ARGV[1]'s slot, if it still holds one. */
const RENEW = `${NOW}
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;

const RELEASE = `redis.call('ZREM', KEYS[1], ARGV[1]) return 1`;

/** How long asking again waits, at first and at most. */
const FIRST_WAIT_MS = 10;
const LONGEST_WAIT_MS = 200;

export interface SharedSlotsOptions {
  /** How long a slot is held without renewal: a crashed holder's frees itself after it. */
  leaseMs?: number;
  /** Redis could not be asked: the call runs without the shared limit (the process's own holds). */
  unavailable?: (error: Error) => void;
}

export class SharedSlots implements EngineSlots {
  private readonly leaseMs: number;

  constructor(
    private readonly scripts: SharedScripts,
    private readonly options: SharedSlotsOptions = {},
  ) {
    this.leaseMs = options.leaseMs ?? 15_000;
  }

  async run<T>(
    tool: Limited,
    wait: SlotWait,
    call: () => Promise<T>,
    notRun: (why: NotRun) => T,
  ): Promise<T> {
    const key = PREFIX + slotKey(tool);
    const id = randomUUID();
    const lease = String(this.leaseMs);
    for (let pause = FIRST_WAIT_MS; ; pause = Math.min(pause * 2, LONGEST_WAIT_MS)) {
      if (wait.signal.aborted) return notRun('cancelled');
      let taken: unknown;
      try {
        taken = await this.scripts.run(ACQUIRE, [key], [id, String(tool.max), lease]);
      } catch (error) {
        this.options.unavailable?.(error as Error);
        return call();
      }
      if (taken === 1) break;
      const left = wait.deadline - performance.now();
      if (left <= 0) return notRun('timed_out');
      await sleep(Math.min(pause, left), undefined, { signal: wait.signal }).catch(() => undefined);
    }
    const renewal = setInterval(
      () => void this.scripts.run(RENEW, [key], [id, lease]).catch(() => undefined),
      this.leaseMs / 3,
    );
    renewal.unref();
    try {
      return await call();
    } finally {
      clearInterval(renewal);
      void this.scripts.run(RELEASE, [key], [id]).catch(() => undefined);
    }
  }
}
