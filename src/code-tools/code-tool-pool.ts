import { Logger } from '@nestjs/common';
import { Worker } from 'node:worker_threads';

const WORKER_URL = new URL('../../assets/python-worker.mjs', import.meta.url);
const DATA_BYTES = 4 * 1024 * 1024;
/** How long interrupted code has to stop before its worker is terminated and replaced. */
const GRACE_MS = 1500;

export type JobKind = 'run' | 'callback' | 'analyze';

/** A synchronous call from Python into the engine, answered by the job's bridge handler. */
export interface BridgeRequest {
  kind: 'tool' | 'http';
  payload: Record<string, unknown>;
}

export interface PoolJob {
  kind: JobKind;
  job: Record<string, unknown>;
  timeoutMs: number;
  onBridge?: (request: BridgeRequest) => Promise<Record<string, unknown>>;
  /** Aborting it drops the job if it waits, or interrupts it like a timeout if it runs. */
  signal?: AbortSignal;
}

/** What a job gets when its signal was aborted (the turn was cancelled). */
export const CANCELLED_RESULT = { ok: false, error: 'Error: cancelled', logs: '' } as const;

export interface PoolOptions {
  workers: number;
  memoryMb: number;
  packagesDir: string;
  /** Overrides GRACE_MS. */
  interruptGraceMs?: number;
}

interface Slot {
  worker: Worker;
  control: SharedArrayBuffer;
  data: SharedArrayBuffer;
  interrupt: SharedArrayBuffer;
  ready: Promise<void>;
  job?: {
    id: number;
    spec: PoolJob;
    resolve: (value: Record<string, unknown>) => void;
    timer?: NodeJS.Timeout;
    /** Why the job was interrupted, if it was. */
    stopped?: 'timeout' | 'cancelled';
  };
}

type Waiting = { spec: PoolJob; resolve: (value: Record<string, unknown>) => void };

/**
 * A pool of worker threads, each with its own CPython (Pyodide). One job per worker at a time;
 * a job that overruns its timeout is interrupted (KeyboardInterrupt), and if that does not stop
 * it the worker is terminated and replaced. A worker whose memory grew past the cap is replaced.
 */
export class CodeToolPool {
  private readonly logger = new Logger(CodeToolPool.name);
  private slots: Slot[] = [];
  private readonly queue: Waiting[] = [];
  private nextId = 1;
  private closed = false;
  /** Workers started since boot (respawns included). */
  started = 0;

  constructor(private readonly options: PoolOptions) {}

  get running(): boolean {
    return this.slots.length > 0;
  }

  /** Starts the workers (idempotent); resolves when every interpreter is loaded. */
  async start(): Promise<void> {
    if (this.slots.length === 0) {
      for (let i = 0; i < this.options.workers; i++) this.slots.push(this.spawn());
    }
    await Promise.all(this.slots.map((s) => s.ready));
  }

  run(spec: PoolJob): Promise<Record<string, unknown>> {
    if (this.closed)
      return Promise.resolve({
        ok: false,
        error: 'Error: RuntimeError: the code tool pool is shut down',
      });
    const { signal } = spec;
    if (signal?.aborted) return Promise.resolve({ ...CANCELLED_RESULT });
    if (this.slots.length === 0) void this.start().catch(() => undefined);
    return new Promise((resolve) => {
      const waiting: Waiting = { spec, resolve };
      if (signal) {
        const onAbort = () => this.cancel(waiting);
        signal.addEventListener('abort', onAbort, { once: true });
        waiting.resolve = (value) => {
          signal.removeEventListener('abort', onAbort);
          resolve(value);
        };
      }
      this.queue.push(waiting);
      this.dispatch();
    });
  }

  /** A cancelled job leaves the queue at once, or is interrupted where it runs. */
  private cancel(waiting: Waiting): void {
    const index = this.queue.indexOf(waiting);
    if (index !== -1) {
      this.queue.splice(index, 1);
      waiting.resolve({ ...CANCELLED_RESULT });
      return;
    }
    const slot = this.slots.find((s) => s.job?.spec === waiting.spec);
    if (slot?.job) this.interrupt(slot, slot.job.id, 'cancelled');
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
    this.slots = [];
  }

  private spawn(): Slot {
    const control = new SharedArrayBuffer(8);
    const data = new SharedArrayBuffer(DATA_BYTES);
    const interrupt = new SharedArrayBuffer(1);
    const worker = new Worker(WORKER_URL, {
      workerData: {
        control,
        data,
        interrupt,
        packagesDir: this.options.packagesDir,
        bridgeTimeoutMs: 600_000,
      },
    });
    worker.unref();
    this.started += 1;
    let markReady!: () => void;
    let markFailed!: (e: Error) => void;
    const slot: Slot = {
      worker,
      control,
      data,
      interrupt,
      ready: new Promise<void>((res, rej) => ((markReady = res), (markFailed = rej))),
    };
    slot.ready.catch(() => undefined);
    worker.on(
      'message',
      (m: { type: string; id?: number; result?: string; memory?: number; request?: string }) => {
        if (m.type === 'ready') {
          markReady();
          this.dispatch();
        } else if (m.type === 'bridge') void this.answerBridge(slot, m.request ?? '{}');
        else if (m.type === 'result')
          this.finish(
            slot,
            m.id!,
            JSON.parse(m.result ?? '{}') as Record<string, unknown>,
            m.memory ?? 0,
          );
      },
    );
    worker.on('error', (error) => {
      this.logger.error(`code tool worker failed: ${error.message}`);
      markFailed(error);
      this.replace(slot, `Error: RuntimeError: the code tool worker failed: ${error.message}`);
    });
    return slot;
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (slot.job) continue;
      void slot.ready.then(
        () => this.assign(slot),
        () => undefined,
      );
    }
  }

  private assign(slot: Slot): void {
    if (slot.job || this.queue.length === 0 || !this.slots.includes(slot)) return;
    const { spec, resolve } = this.queue.shift()!;
    const id = this.nextId++;
    const job: NonNullable<Slot['job']> = { id, spec, resolve };
    slot.job = job;
    // Cleared here, not in the worker when the job starts: a timeout that fires while the job is
    // still on its way to the worker must not be erased (the code would then run unbounded).
    new Uint8Array(slot.interrupt)[0] = 0;
    job.timer = setTimeout(() => this.interrupt(slot, id, 'timeout'), spec.timeoutMs);
    slot.worker.postMessage({ type: 'job', id, kind: spec.kind, job: spec.job });
  }

  /** Stops a running job: KeyboardInterrupt, then a new worker if the code does not stop. */
  private interrupt(slot: Slot, id: number, why: 'timeout' | 'cancelled'): void {
    if (slot.job?.id !== id || slot.job.stopped) return;
    slot.job.stopped = why;
    clearTimeout(slot.job.timer);
    new Uint8Array(slot.interrupt)[0] = 2; // SIGINT: KeyboardInterrupt at the next bytecode
    slot.job.timer = setTimeout(() => {
      if (slot.job?.id !== id) return;
      this.logger.warn('a code tool ignored the interrupt: terminating and replacing its worker');
      this.replace(slot, undefined);
    }, this.options.interruptGraceMs ?? GRACE_MS);
  }

  private stoppedResult(job: NonNullable<Slot['job']>): Record<string, unknown> {
    if (job.stopped === 'cancelled') return { ...CANCELLED_RESULT };
    return {
      ok: false,
      error: `Error: TimeoutError: the code ran longer than ${job.spec.timeoutMs / 1000}s and was stopped`,
      logs: '',
    };
  }

  private finish(slot: Slot, id: number, result: Record<string, unknown>, memory: number): void {
    const job = slot.job;
    if (!job || job.id !== id) return;
    clearTimeout(job.timer);
    slot.job = undefined;
    job.resolve(job.stopped ? { ...this.stoppedResult(job), logs: result.logs ?? '' } : result);
    if (memory > this.options.memoryMb * 1024 * 1024) {
      this.logger.warn(
        `a code tool worker grew to ${Math.round(memory / 1048576)} MiB (CODE_TOOLS_MEMORY_MB=${this.options.memoryMb}): replacing it`,
      );
      this.replace(slot, undefined);
      return;
    }
    this.dispatch();
  }

  /** Terminates a worker and starts a fresh one in its place; its job (if any) fails. */
  private replace(slot: Slot, error: string | undefined): void {
    const index = this.slots.indexOf(slot);
    if (index === -1) return;
    const job = slot.job;
    slot.job = undefined;
    if (job) {
      clearTimeout(job.timer);
      job.resolve(job.stopped || !error ? this.stoppedResult(job) : { ok: false, error, logs: '' });
    }
    void slot.worker.terminate();
    if (this.closed) return;
    this.slots[index] = this.spawn();
    this.dispatch();
  }

  private async answerBridge(slot: Slot, requestJson: string): Promise<void> {
    const job = slot.job;
    let answer: Record<string, unknown>;
    try {
      const request = JSON.parse(requestJson) as BridgeRequest;
      answer = job?.spec.onBridge
        ? await job.spec.onBridge(request)
        : {
            error: 'calls into the engine are not available here',
            text: 'Error: tool request failed: not available',
          };
    } catch (error) {
      answer = {
        error: (error as Error).message,
        text: `Error: tool request failed: ${(error as Error).message}`,
      };
    }
    if (slot.job !== job || !this.slots.includes(slot)) return;
    let bytes = new TextEncoder().encode(JSON.stringify(answer));
    if (bytes.length > DATA_BYTES) {
      bytes = new TextEncoder().encode(
        JSON.stringify({
          error: 'the answer is larger than 4 MiB',
          text: 'Error: tool request failed: the answer is larger than 4 MiB',
        }),
      );
    }
    new Uint8Array(slot.data).set(bytes);
    const control = new Int32Array(slot.control);
    Atomics.store(control, 1, bytes.length);
    Atomics.store(control, 0, 1);
    Atomics.notify(control, 0);
  }
}
