/**
 * A tool's `max_concurrency` across the engine: with a Redis session store, across every process
 * and replica sharing it, by a semaphore in Redis (a sorted set of the slots held, each with a
 * lease the holder renews while its call runs, so that a crashed holder's slot frees itself;
 * callers wait in a queue, first come first served, told when a slot is freed); without, or while
 * Redis is away, across the engine's processes (ENGINE_PROCESSES), by the primary (see
 * slot-table.ts). Pure but for the
 * scripts and the link they are given: no Nest import.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { ClusterLink } from '../cluster/cluster-link.js';
import type { Broadcast, SharedScripts } from '../sessions/session-store.js';
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

/**
 * A limit's key: a tool redefined with another target or limit (`terms`) counts afresh. Also the
 * rate limits' (shared-rates.ts).
 */
export const limitKey = (name: string, terms: string) =>
  `${name}:${createHash('sha256').update(terms).digest('hex').slice(0, 16)}`;
const slotKey = ({ name, target, max }: Limited) => limitKey(name, `${max} ${target}`);

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
/** Where a freed slot (or a waiter gone from the queue) is told: its limit's key. */
export const SLOTS_CHANNEL = 'agent-engine:tool-slots';

/** Redis's own clock (TIME), so that replicas whose clocks differ still agree on leases. */
const NOW = `local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)`;

/**
 * Keys: the slots held (id → lease's end), the queue (id → ticket), the waiters' leases (id →
 * end), the tickets' counter. ARGV: the id, the maximum, the slot's lease and the waiter's, ms.
 * Takes a slot (1) if one is free for the id's place in the queue, first come first served; else
 * queues the id, or keeps it queued, for a waiter's lease (0). A waiter that stopped asking (its
 * process died) leaves the queue when its lease ends.
 */
const ACQUIRE = `${NOW}
local held, queue, waiting, tickets = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local id, lease, waitLease = ARGV[1], tonumber(ARGV[3]), tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', held, '-inf', now)
for _, gone in ipairs(redis.call('ZRANGEBYSCORE', waiting, '-inf', now)) do
  redis.call('ZREM', queue, gone)
end
redis.call('ZREMRANGEBYSCORE', waiting, '-inf', now)
if not redis.call('ZSCORE', queue, id) then
  redis.call('ZADD', queue, redis.call('INCR', tickets), id)
end
local free = tonumber(ARGV[2]) - redis.call('ZCARD', held)
if free > 0 and redis.call('ZRANK', queue, id) < free then
  redis.call('ZREM', queue, id)
  redis.call('ZREM', waiting, id)
  redis.call('ZADD', held, now + lease, id)
  redis.call('PEXPIRE', held, lease)
  return 1
end
redis.call('ZADD', waiting, now + waitLease, id)
for _, key in ipairs({queue, waiting, tickets}) do redis.call('PEXPIRE', key, waitLease) end
return 0`;

/** Extends the lease of ARGV[1]'s slot, if it still holds one. */
const RENEW = `${NOW}
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;

/**
 * Keys as ACQUIRE's. Frees ARGV[1]'s slot (a call over), or its place in the queue (a waiter that
 * gave up); returns how many wait, to be told.
 */
const RELEASE = `for i = 1, 3 do redis.call('ZREM', KEYS[i], ARGV[1]) end
return redis.call('ZCARD', KEYS[2])`;

/** How long asking again waits at first, when no word of a freed slot comes. */
const FIRST_WAIT_MS = 10;

export interface SharedSlotsOptions {
  /** How long a slot is held without renewal: a crashed holder's frees itself after it. */
  leaseMs?: number;
  /** How long a waiter keeps its place in the queue without asking again. */
  waitLeaseMs?: number;
  /** The longest a waiter waits before asking again when no word of a freed slot comes. */
  longestWaitMs?: number;
  /** Where freed slots are told, so that their next waiter asks at once. */
  broadcast?: Broadcast;
  /** Redis could not be asked: the call waits for a slot of `fallback`, or runs without. */
  unavailable?: (error: Error) => void;
  /** Where slots are taken while Redis is away: the engine's processes' (the primary's). */
  fallback?: EngineSlots;
}

export class SharedSlots implements EngineSlots {
  private readonly leaseMs: number;
  private readonly waitLeaseMs: number;
  private readonly longestWaitMs: number;
  /** The waiters of this process, by their limit's key: told when a slot of it is freed. */
  private readonly waiters = new Map<string, Set<() => void>>();
  private listening: Promise<void> | undefined;

  constructor(
    private readonly scripts: SharedScripts,
    private readonly options: SharedSlotsOptions = {},
  ) {
    this.leaseMs = options.leaseMs ?? 15_000;
    this.waitLeaseMs = options.waitLeaseMs ?? 5_000;
    this.longestWaitMs = options.longestWaitMs ?? 200;
  }

  async run<T>(
    tool: Limited,
    wait: SlotWait,
    call: () => Promise<T>,
    notRun: (why: NotRun) => T,
  ): Promise<T> {
    // One hash tag: a Redis Cluster keeps a limit's keys together, as its scripts need.
    const key = `${PREFIX}{${slotKey(tool)}}`;
    const id = randomUUID();
    const keys = [key, `${key}:queue`, `${key}:waiting`, `${key}:tickets`];
    const taken = await this.take(keys, id, String(tool.max), wait);
    if (taken === 'unavailable') {
      return this.options.fallback ? this.options.fallback.run(tool, wait, call, notRun) : call();
    }
    if (taken !== 'taken') {
      void this.release(keys, id);
      return notRun(taken);
    }
    const lease = String(this.leaseMs);
    const renewal = setInterval(
      () => void this.scripts.run(RENEW, [key], [id, lease]).catch(() => undefined),
      this.leaseMs / 3,
    );
    renewal.unref();
    try {
      return await call();
    } finally {
      clearInterval(renewal);
      void this.release(keys, id);
    }
  }

  /** Waits for a slot of `key`, in the queue, asking again when one is freed or after a while. */
  private async take(
    keys: string[],
    id: string,
    max: string,
    wait: SlotWait,
  ): Promise<'taken' | 'unavailable' | NotRun> {
    const key = keys[0]!;
    const args = [id, max, String(this.leaseMs), String(this.waitLeaseMs)];
    const waiter = new Waiter();
    this.listen();
    let waiters = this.waiters.get(key);
    if (!waiters) this.waiters.set(key, (waiters = new Set()));
    waiters.add(waiter.wake);
    try {
      for (let pause = FIRST_WAIT_MS; ; pause = Math.min(pause * 2, this.longestWaitMs)) {
        if (wait.signal.aborted) return 'cancelled';
        waiter.woken = false;
        try {
          if ((await this.scripts.run(ACQUIRE, keys, args)) === 1) return 'taken';
        } catch (error) {
          this.options.unavailable?.(error as Error);
          return 'unavailable';
        }
        const left = wait.deadline - performance.now();
        if (left <= 0) return 'timed_out';
        await waiter.nap(Math.min(pause, left), wait.signal);
      }
    } finally {
      waiters.delete(waiter.wake);
      if (waiters.size === 0) this.waiters.delete(key);
    }
  }

  /** Frees `id`'s slot or place, and tells the waiters everywhere, if any. */
  private async release(keys: string[], id: string): Promise<void> {
    try {
      const waiting = await this.scripts.run(RELEASE, keys, [id]);
      if (waiting !== 0) await this.options.broadcast?.publish(SLOTS_CHANNEL, keys[0]!);
    } catch {
      // A slot not released frees itself when its lease ends; a waiter, when its own does.
    }
  }

  /** Hears of freed slots from the first wait on (Redis's pub/sub); without, waiters ask anew. */
  private listen(): void {
    this.listening ??= (
      this.options.broadcast?.subscribe(SLOTS_CHANNEL, (key) => {
        for (const wake of this.waiters.get(key) ?? []) wake();
      }) ?? Promise.resolve()
    ).catch(() => undefined);
  }
}

/** One waiter's pause: over after `ms`, when its signal aborts, or when a slot is freed. */
class Waiter {
  woken = false;
  private done: (() => void) | undefined;
  readonly wake = () => {
    this.woken = true;
    this.done?.();
  };

  nap(ms: number, signal: AbortSignal): Promise<void> {
    // Freed while it was asking: it asks again at once.
    if (this.woken || signal.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.done?.(), ms);
      const onAbort = () => this.done?.();
      signal.addEventListener('abort', onAbort, { once: true });
      this.done = () => {
        this.done = undefined;
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
    });
  }
}
