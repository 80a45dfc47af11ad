/**
 * A code tools worker's memory read from outside, by the engine, while it runs a job. The worker
 * holds itself to CODE_TOOLS_MEMORY_MB (its interpreter's growth refused past the cap, its
 * process's memory read as Python runs): tool code that reaches its JavaScript can switch those
 * checks off, not this one. Linux (`/proc`); elsewhere nothing is read. Pure: no Nest import.
 */
import { readFileSync } from 'node:fs';
import { mib } from './worker-reply.js';

/** How often a running job's worker has its memory read. */
const WATCH_MS = 250;
/** Room past the worker's own limit, so that its own check (the precise one) always comes first. */
const MARGIN_BYTES = 64 * 1024 * 1024;

/** A process's resident memory (VmRSS), in bytes; undefined where it cannot be read. */
export function residentBytes(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const kib = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kib === undefined ? undefined : Number(kib) * 1024;
  } catch {
    return undefined;
  }
}

/**
 * The most a worker that held `baseline` bytes once loaded may hold while it runs a job: its own
 * check stops it at `baseline` plus the cap (`memoryMb`); this is a quarter of the cap and 64 MiB
 * more.
 */
export const outsideLimit = (baseline: number, memoryMb: number): number =>
  baseline + 1.25 * memoryMb * 1024 * 1024 + MARGIN_BYTES;

/**
 * Reads `pid`'s memory every WATCH_MS and calls `over` (once) when it is past `limit` bytes.
 * Returns what stops the watch.
 */
export function watchMemory(pid: number, limit: number, over: (bytes: number) => void): () => void {
  const timer = setInterval(() => {
    const bytes = residentBytes(pid);
    if (bytes === undefined || bytes <= limit) return;
    clearInterval(timer);
    over(bytes);
  }, WATCH_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Watches worker `pid`, which held `baseline` bytes once loaded, while it runs a job, under
 * CODE_TOOLS_MEMORY_MB `memoryMb`: `over` is told why once it is past outsideLimit. Nothing where
 * its memory cannot be read. Returns what stops the watch.
 */
export function watchWorker(
  pid: number | undefined,
  baseline: number | undefined,
  memoryMb: number,
  over: (why: string) => void,
): (() => void) | undefined {
  if (pid === undefined || baseline === undefined) return undefined;
  return watchMemory(pid, outsideLimit(baseline, memoryMb), (bytes) =>
    over(
      `a code tool worker grew to ${mib(bytes)} MiB, past CODE_TOOLS_MEMORY_MB=${memoryMb} (its own check was switched off): replacing it`,
    ),
  );
}
