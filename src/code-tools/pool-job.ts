/** What the code tools pool (code-tool-pool.ts) is given (its settings, each job), and what it holds. */
import { CallDeadline } from '../common/call-deadline.js';
import type { BridgeHandler, JobCalls } from './bridge.js';
import type { SandboxProcess } from './sandbox-process.js';

export type JobKind = 'run' | 'callback' | 'analyze';

export interface PoolJob {
  kind: JobKind;
  job: Record<string, unknown>;
  timeoutMs: number;
  onBridge?: BridgeHandler;
  /** Aborting it drops the job if it waits, or interrupts it like a timeout if it runs. */
  signal?: AbortSignal;
}

export interface PoolOptions {
  workers: number;
  memoryMb: number;
  packagesDir: string;
  /** The largest answer to a call into the engine (bridge.ts answerMaxBytes; default for 1 MiB responses). */
  answerMaxBytes?: number;
  /** Told how long each call (not an analysis) waited for a worker, in seconds, as it gets one. */
  onWaited?: (seconds: number) => void;
  /** How long interrupted code has to stop before its worker is killed (default 1.5 s). */
  interruptGraceMs?: number;
}

/** A worker of the pool, and the job it runs. */
export interface Slot {
  worker: SandboxProcess;
  /** It has loaded its interpreter. */
  loaded?: boolean;
  /** Its process's memory once loaded (bytes; undefined where it cannot be read). */
  baseline?: number;
  ready: Promise<void>;
  /** The job whose changes it is undoing, its result sent: it takes no job until it has. */
  restoring?: number;
  job?: {
    id: number;
    spec: PoolJob;
    resolve: (value: Record<string, unknown>) => void;
    /** Its time (`timeoutMs`), standing still while it waits for the user's answer. */
    deadline: CallDeadline;
    /** After an interrupt: the grace the code has to stop. */
    timer?: NodeJS.Timeout;
    /** Stops the reading of its worker's memory from outside (worker-memory.ts). */
    unwatch?: () => void;
    /** Why the job was interrupted, if it was. */
    stopped?: 'timeout' | 'cancelled';
    /** Its calls into the engine. */
    calls: JobCalls;
  };
}

/** A job waiting for a worker. */
export type Waiting = {
  spec: PoolJob;
  resolve: (value: Record<string, unknown>) => void;
  /** Ends its wait for a worker: as long as its own timeout. */
  timer?: NodeJS.Timeout;
  /** When it began to wait (performance.now()). */
  since: number;
};

/**
 * A job's time, `onTimeout` once it is over, and its bridge handler, which may hold the time
 * still while the code waits for the user (`hold`).
 */
export function jobTime(
  spec: PoolJob,
  onTimeout: () => void,
): { deadline: CallDeadline; onBridge?: BridgeHandler } {
  const deadline = new CallDeadline(spec.timeoutMs, () => 'timeout');
  deadline.signal.addEventListener('abort', onTimeout, { once: true });
  const handler = spec.onBridge;
  const hold = <T>(wait: () => Promise<T>) => deadline.pausing(wait)();
  return {
    deadline,
    ...(handler && { onBridge: (request, signal) => handler(request, signal, hold) }),
  };
}

/**
 * The job has ended: neither its time nor an interrupt's grace runs on, its calls into the engine
 * are answered no more and its worker's memory is no longer read.
 */
export function endJob(job: NonNullable<Slot['job']>): void {
  job.deadline.clear();
  clearTimeout(job.timer);
  job.calls.end();
  job.unwatch?.();
}
