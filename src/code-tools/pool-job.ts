/** What the code tools pool (code-tool-pool.ts) is given: its settings, and each job. */
import type { BridgeHandler } from './bridge.js';

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
