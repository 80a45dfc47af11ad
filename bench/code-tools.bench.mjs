// Code tools benchmark: pool start-up time, memory per worker, and warm call latency p50/p99
// of a trivial tool (goal: p50 <= 10 ms), back to back and 10 ms apart, through the same pool the
// engine uses.
// Run: npm run bench:code-tools   (builds dist/ first); WARMUP calls before the 500 measured (50).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { CodeToolPool } from '../dist/code-tools/code-tool-pool.js';

/** The resident memory of this process and its children (each worker is a process), bytes. */
const rss = () =>
  process.memoryUsage().rss +
  execFileSync('ps', ['-o', 'rss=', '--ppid', String(process.pid)], { encoding: 'utf8' })
    .split('\n')
    .reduce((sum, line) => sum + (Number(line.trim()) || 0) * 1024, 0);

/**
 * The workers' proportional memory (PSS), bytes: their own pages, and a share of those they share
 * (Node's binary, ~40 MiB, with the engine and each other), as a pod's memory counts them once.
 */
const workersPss = () =>
  execFileSync('ps', ['-o', 'pid=', '--ppid', String(process.pid)], { encoding: 'utf8' })
    .split('\n')
    .filter((pid) => pid.trim() !== '')
    .reduce((sum, pid) => {
      try {
        const kb = /^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid.trim()}/smaps_rollup`, 'utf8'));
        return sum + Number(kb?.[1] ?? 0) * 1024;
      } catch {
        return sum; // ps itself, gone
      }
    }, 0);

const WORKERS = Number(process.env.WORKERS ?? 2);
const context = {
  function_call_id: 'c', user_content: { role: 'user', parts: [{ text: 'hi' }] }, state: {}, events: [],
  session_id: 's', invocation_id: 't', agent_name: 'agent', session: { modality: 'TEXT', channel: 'websocket' },
};
const rss0 = rss();
const pool = new CodeToolPool({ workers: WORKERS, memoryMb: 1024, packagesDir: '' });
let start = performance.now();
await pool.start();
const startup = performance.now() - start;
const perWorker = (rss() - rss0) / WORKERS / 1048576;
const pssPerWorker = workersPss() / WORKERS / 1048576;

const job = { code: 'def add(a: int, b: int) -> int:\n    """Adds."""\n    return a + b', func: 'add', args: { a: 2, b: 3 }, context };
const WARMUP = Number(process.env.WARMUP ?? 50);
for (let i = 0; i < WARMUP; i++) await pool.run({ kind: 'run', job, timeoutMs: 5000 });
/** 500 calls, `gapMs` apart (0: back to back), each one's latency sorted. */
async function latencies(gapMs) {
  const times = [];
  for (let i = 0; i < 500; i++) {
    if (gapMs) await new Promise((resolve) => setTimeout(resolve, gapMs));
    const start = performance.now();
    const r = await pool.run({ kind: 'run', job, timeoutMs: 5000 });
    times.push(performance.now() - start);
    if (r.result !== '5') throw new Error(`unexpected result ${JSON.stringify(r)}`);
  }
  return times.sort((a, b) => a - b);
}
const times = await latencies(0);
// As a conversation has them, apart: a worker has undone the last call's changes by the next.
const spaced = await latencies(10);
const at = (sorted, p) => sorted[Math.floor((p / 100) * (sorted.length - 1))].toFixed(2);
const pct = (p) => at(times, p);
console.log(`pool start-up (${WORKERS} workers, in parallel): ${startup.toFixed(0)} ms`);
console.log(`memory per worker (RSS growth of the engine and its workers' processes / workers): ${perWorker.toFixed(0)} MiB; its proportional share (PSS, shared pages split): ${pssPerWorker.toFixed(0)} MiB`);
console.log(`warm call latency, trivial tool, 500 calls: p50 ${pct(50)} ms  p99 ${pct(99)} ms  (goal p50 <= 10 ms)`);
console.log(`warm call latency, trivial tool, 500 calls 10 ms apart: p50 ${at(spaced, 50)} ms  p99 ${at(spaced, 99)} ms`);
await pool.close();
