import { Logger } from '@nestjs/common';
import { answerMaxBytes, JobCalls } from './bridge.js';
import type { PoolJob, PoolOptions, Slot, Waiting } from './pool-job.js';
import { endJob, jobTime } from './pool-job.js';
import { SandboxProcess } from './sandbox-process.js';
import { residentBytes, watchWorker } from './worker-memory.js';
import {
  CANCELLED_RESULT,
  distrust,
  FLOOD_ERROR,
  memoryError,
  mib,
  readReply,
  stoppedResult,
  withMemoryVerdict,
  type WorkerMessage,
} from './worker-reply.js';

/** How long interrupted code has to stop before its worker is terminated and replaced. */
const GRACE_MS = 1500;

export type { BridgeRequest } from './bridge.js';
export { CANCELLED_RESULT } from './worker-reply.js';
export type { JobKind, PoolJob, PoolOptions } from './pool-job.js';

/**
 * A pool of workers, each a process of its own with its own CPython (Pyodide) (sandbox-process.ts).
 * One job per worker at a time; a job that overruns its timeout is interrupted
 * (KeyboardInterrupt), and if that does not stop it the worker is killed and replaced. A worker
 * whose memory grew past the cap is replaced. Not a general pool (piscina, tinypool): a job
 * talks with its own worker while it runs (the interrupt Pyodide polls, the synchronous bridge
 * for `tools.<name>` and `ces_requests`), and an overrunning job is interrupted first, its worker
 * killed only if that fails, where those pools terminate on abort and keep no state per worker.
 */
export class CodeToolPool {
  private readonly logger = new Logger(CodeToolPool.name);
  private slots: Slot[] = [];
  private readonly queue: Waiting[] = [];
  private nextId = 1;
  private closed = false;
  /** The warning that the interpreter alone is over the cap was logged. */
  private heapWarned = false;
  /** Workers started since boot (respawns included). */
  started = 0;
  /** Why workers failed to start, while none has since: calls then fail at once with it. */
  private startError: string | undefined;
  /** Workers that failed to start in a row: the next waits longer (up to 30 s). */
  private startFailures = 0;

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
    if (this.startError !== undefined && !this.slots.some((s) => s.loaded))
      return Promise.resolve({ ok: false, error: this.startError, logs: '' });
    const { signal } = spec;
    if (signal?.aborted) return Promise.resolve({ ...CANCELLED_RESULT });
    if (this.slots.length === 0) void this.start().catch(() => undefined);
    return new Promise((resolve) => {
      const waiting: Waiting = { spec, resolve, since: performance.now() };
      if (signal) {
        const onAbort = () => this.cancel(waiting);
        signal.addEventListener('abort', onAbort, { once: true });
        waiting.resolve = (value) => {
          signal.removeEventListener('abort', onAbort);
          resolve(value);
        };
      }
      this.queue.push(waiting);
      this.awaitWorker(waiting);
      this.dispatch();
    });
  }

  /**
   * A call waits for a worker no longer than its timeout: when every worker is busy that long, it
   * fails without running, saying so, and the operator is told to add workers. (Its run, once it
   * has a worker, has the whole timeout.) Workers still starting are waited for: a start that
   * fails fails the calls itself.
   */
  private awaitWorker(waiting: Waiting): void {
    const { timeoutMs } = waiting.spec;
    waiting.timer = setTimeout(() => {
      const index = this.queue.indexOf(waiting);
      if (index === -1) return;
      if (!this.slots.some((s) => s.loaded)) return this.awaitWorker(waiting);
      this.queue.splice(index, 1);
      const busy = `all ${this.options.workers} busy`;
      this.logger.warn(
        `a code tool call waited ${timeoutMs / 1000}s for a worker, ${busy}, and did not run: raise CODE_TOOLS_WORKERS`,
      );
      waiting.resolve({
        ok: false,
        error: `Error: TimeoutError: no code tools worker was free within ${timeoutMs / 1000}s (${busy}): the code did not run`,
        logs: '',
      });
    }, timeoutMs);
    waiting.timer.unref();
  }

  /** A cancelled job leaves the queue at once, or is interrupted where it runs. */
  private cancel(waiting: Waiting): void {
    const index = this.queue.indexOf(waiting);
    if (index !== -1) {
      this.queue.splice(index, 1);
      clearTimeout(waiting.timer);
      waiting.resolve({ ...CANCELLED_RESULT });
      return;
    }
    const slot = this.slots.find((s) => s.job?.spec === waiting.spec);
    if (slot?.job) this.interrupt(slot, slot.job.id, 'cancelled');
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.map((s) => s.worker.kill()));
    this.slots = [];
  }

  private spawn(): Slot {
    this.started += 1;
    let markReady!: () => void;
    let markFailed!: (e: Error) => void;
    const ready = new Promise<void>((res, rej) => ((markReady = res), (markFailed = rej)));
    ready.catch(() => undefined);
    const { packagesDir, memoryMb } = this.options;
    const slot: Slot = {
      ready,
      worker: new SandboxProcess(
        { packagesDir, memoryMb },
        (m: WorkerMessage) => {
          if (m.type === 'ready') {
            slot.worker.busy = false;
            slot.loaded = true;
            slot.baseline = residentBytes(slot.worker.pid);
            this.startError = undefined;
            this.startFailures = 0;
            this.checkLoadedHeap(m.memory ?? 0);
            markReady();
            this.dispatch();
          } else if (m.type === 'bridge') void slot.job?.calls.answer(m.request ?? '{}', m.seq);
          else if (m.type === 'wake') slot.job?.calls.wake(m.seq, m.ms);
          else if (m.type === 'result') this.finish(slot, m);
          else if (m.type === 'restored') this.restored(slot, m);
        },
        (why) => {
          this.logger.error(`code tool worker failed: ${why}`);
          markFailed(new Error(why));
          const error = `Error: RuntimeError: the code tool worker failed: ${why}`;
          if (slot.loaded) return this.replace(slot, error);
          // It failed to start, and so may the next: calls are not kept waiting for a worker
          // that may never come, and the next is started later each time.
          this.startError = error;
          if (!this.slots.some((s) => s.loaded))
            for (const waiting of this.queue.splice(0))
              waiting.resolve({ ok: false, error, logs: '' });
          const delay = Math.min(30_000, 500 * 2 ** this.startFailures++);
          setTimeout(() => this.replace(slot, error), delay).unref();
        },
      ),
    };
    return slot;
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (slot.job || slot.restoring !== undefined) continue;
      void slot.ready.then(
        () => this.assign(slot),
        () => undefined,
      );
    }
  }

  private assign(slot: Slot): void {
    if (slot.job || slot.restoring !== undefined) return;
    if (this.queue.length === 0 || !this.slots.includes(slot)) return;
    const { spec, resolve, timer, since } = this.queue.shift()!;
    clearTimeout(timer);
    if (spec.kind !== 'analyze') this.options.onWaited?.((performance.now() - since) / 1000);
    const id = this.nextId++;
    const maxBytes = this.options.answerMaxBytes ?? answerMaxBytes(1024 * 1024);
    const { deadline, onBridge } = jobTime(spec, () => this.interrupt(slot, id, 'timeout'));
    const calls = new JobCalls(
      onBridge,
      maxBytes,
      (frame) => {
        if (slot.job === job && this.slots.includes(slot)) slot.worker.answer(frame);
      },
      () => {
        if (slot.job !== job) return;
        this.logger.warn(
          'a code tool sent calls into the engine past the runtime: replacing its worker',
        );
        this.replace(slot, FLOOD_ERROR);
      },
    );
    const job: NonNullable<Slot['job']> = { id, spec, resolve, calls, deadline };
    slot.job = job;
    deadline.start();
    job.unwatch = watchWorker(slot.worker.pid, slot.baseline, this.options.memoryMb, (why) => {
      if (slot.job?.id !== id) return;
      this.logger.warn(why);
      this.replace(slot, memoryError(this.options.memoryMb));
    });
    slot.worker.busy = true;
    slot.worker.send({ type: 'job', id, kind: spec.kind, job: spec.job });
  }

  /** Stops a running job: KeyboardInterrupt, then a new worker if the code does not stop. */
  private interrupt(slot: Slot, id: number, why: 'timeout' | 'cancelled'): void {
    if (slot.job?.id !== id || slot.job.stopped) return;
    slot.job.stopped = why;
    slot.job.deadline.clear();
    slot.worker.interrupt(id); // KeyboardInterrupt within a few bytecodes
    slot.job.calls.interrupt(); // code waiting for the engine's answers, to see it
    slot.job.timer = setTimeout(() => {
      if (slot.job?.id !== id) return;
      this.logger.warn('a code tool ignored the interrupt: killing and replacing its worker');
      this.replace(slot, undefined);
    }, this.options.interruptGraceMs ?? GRACE_MS);
  }

  /** Warns once when the interpreter alone, just loaded, is over the cap. */
  private checkLoadedHeap(memory: number): void {
    if (memory <= this.options.memoryMb * 1024 * 1024 || this.heapWarned) return;
    this.heapWarned = true;
    this.logger.warn(
      `the Python heap takes ${mib(memory)} MiB once loaded, over CODE_TOOLS_MEMORY_MB=${this.options.memoryMb}: code tools will fail with MemoryError`,
    );
  }

  /**
   * A job's result. A worker is replaced after it when its interpreter cannot be trusted: its
   * code reached the memory cap (a growth was refused: Python saw MemoryError) or its heap is
   * over it (WASM memory never shrinks), or Pyodide reported a fatal error. Else it takes no job
   * until it has undone what the code changed (restored).
   */
  private finish(slot: Slot, m: WorkerMessage): void {
    const job = slot.job;
    if (!job || job.id !== m.id) return;
    endJob(job);
    slot.job = undefined;
    slot.restoring = job.id;
    const result = withMemoryVerdict(readReply(m.result), m, this.options.memoryMb);
    job.resolve(
      job.stopped
        ? { ...stoppedResult(job.stopped, job.spec.timeoutMs), logs: result.logs ?? '' }
        : result,
    );
    this.distrusted(slot, m);
  }

  /** The worker undid what its last job changed, or could not (it is replaced). */
  private restored(slot: Slot, m: WorkerMessage): void {
    if (slot.restoring === undefined || slot.restoring !== m.id) return;
    slot.restoring = undefined;
    if (this.distrusted(slot, m)) return;
    slot.worker.busy = false;
    this.dispatch();
  }

  /** Whether the worker's last message says it cannot be trusted: it is then replaced. */
  private distrusted(slot: Slot, m: WorkerMessage): boolean {
    const why = distrust(m, this.options.memoryMb);
    if (why === undefined) return false;
    this.logger.warn(`${why}: replacing its worker`);
    this.replace(slot, undefined);
    return true;
  }

  /** Kills a worker and starts a fresh one in its place; its job (if any) fails. */
  private replace(slot: Slot, error: string | undefined): void {
    const index = this.slots.indexOf(slot);
    if (index === -1) return;
    const job = slot.job;
    slot.job = undefined;
    if (job) {
      endJob(job);
      job.resolve(
        job.stopped || !error
          ? stoppedResult(job.stopped, job.spec.timeoutMs)
          : { ok: false, error, logs: '' },
      );
    }
    void slot.worker.kill();
    if (this.closed) return;
    this.slots[index] = this.spawn();
    this.dispatch();
  }
}
