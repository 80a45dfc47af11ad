// Engine vs a bare SSE→WS relay, measured in the same run: N sessions each stream a 200-delta
// answer from a fake LLM at one delta per 20 ms. Latency per delta = fake server write → client
// receive. A second baseline, the JSON relay, also parses the SSE and the JSON and sends one
// assistant_delta frame per delta: the least any engine that reads the stream must do. Prints
// p50/p99, the ratios, CPU per delta (and that of the JavaScript thread alone) and RSS per session
// of the process under test. The fake LLM runs in a process of its own; times are wall-clock
// (performance.timeOrigin + now), comparable across processes on one machine.
//
// Each target first serves a warm-up round (the same sessions, WARMUP_DELTAS deltas each, not
// measured), as a long-running server is warm. The targets run in turn, ROUNDS times, the order
// rotated each round, and the figures are medians over the rounds: a busy spell of the machine
// then hits one round, not one target.
//
// Run: npm run bench:relay. Settings (environment): SESSIONS (100,500), ROUNDS (3), DELTAS (200),
// TARGETS (relay,json,engine), ENGINE_PROCESSES (the engine only; CPU and RSS are summed over its
// processes), PROFILE=relay|json|engine (a CPU profile in /tmp/prof), TARGET_FLAGS and
// ENGINE_FLAGS (node flags for every target, or the engine only, e.g. --trace-gc). Each target's
// standard output goes to /tmp/relay-bench-<target>.log.
import { spawn } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import WebSocket from 'ws';

const DELTAS = Number(process.env.DELTAS ?? 200);
const INTERVAL_MS = 20;
const SIZES = (process.env.SESSIONS ?? '100,500').split(',').map(Number);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const WARMUP_DELTAS = 50;

/** The fake LLM runs in its own process, so the clients here do not compete with it. */
function fakeLlm() {
  const child = spawn(process.execPath, ['bench/fake-sse-server.mjs'], {
    env: { ...process.env, DELTAS: String(DELTAS), WARMUP_DELTAS: String(WARMUP_DELTAS), INTERVAL_MS: String(INTERVAL_MS) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve) => child.stdout.once('data', (d) => resolve({ server: child, url: d.toString().trim() })));
}

const wallClock = () => performance.timeOrigin + performance.now();

/** A process and its children (the engine's processes with ENGINE_PROCESSES > 1). */
function tree(pid) {
  let children = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
  } catch {}
  return [pid, ...children.flatMap((c) => tree(Number(c)))];
}

const sum = (values) => values.reduce((a, b) => a + b, 0);

/** The fields after the name in a /proc stat file, or undefined once the process is gone. */
function stat(path) {
  try {
    return readFileSync(path, 'utf8').split(') ')[1].split(' ');
  } catch {
    return undefined;
  }
}

/**
 * CPU time of a process tree so far, user and system, in ms (clock ticks of 10 ms); `main` is the
 * user + system time of the JavaScript threads alone (each process's main thread), the time that
 * queues deltas when it runs out, without the GC and compiler helper threads.
 */
function cpuMs(pid) {
  const pids = tree(pid);
  const stats = pids.map((p) => stat(`/proc/${p}/stat`)).filter(Boolean);
  const mains = pids.map((p) => stat(`/proc/${p}/task/${p}/stat`)).filter(Boolean);
  const ticks = (list, field) => sum(list.map((f) => Number(f[field]) * 10));
  return { user: ticks(stats, 11), sys: ticks(stats, 12), main: ticks(mains, 11) + ticks(mains, 12) };
}

function rssKb(pid) {
  return sum(tree(pid).map((p) => {
    try {
      const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'));
      return m ? Number(m[1]) : 0;
    } catch {
      return 0;
    }
  }));
}

async function startTarget(kind, llmUrl, port) {
  const script = kind === 'engine' ? 'dist/main.js' : 'bench/relay-pipe.mjs';
  const flags = [
    ...(process.env.PROFILE === kind ? ['--cpu-prof', '--cpu-prof-dir=/tmp/prof'] : []),
    ...(process.env.TARGET_FLAGS ?? '').split(' ').filter(Boolean),
    ...(kind === 'engine' ? (process.env.ENGINE_FLAGS ?? '').split(' ').filter(Boolean) : []),
  ];
  const child = spawn(process.execPath, [...flags, script], {
    env: { ...process.env, ENGINE_PROCESSES: kind === 'engine' ? (process.env.ENGINE_PROCESSES ?? '1') : '1', RELAY: kind === 'json' ? 'json' : 'pipe', PORT: String(port), LLM_BASE_URL: llmUrl, LLM_MODEL: 'fake', LOG_LEVEL: 'warn', WS_PING_INTERVAL_SECS: '0', TTS_PROVIDER: 'none' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // Its standard output (logs, or what ENGINE_FLAGS such as --trace-gc print) goes to a file.
  child.stdout.pipe(createWriteStream(`/tmp/relay-bench-${kind}.log`));
  for (let i = 0; i < 100; i++) {
    try {
      await new Promise((resolve, reject) => {
        const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`);
        ws.once('open', () => (ws.close(), resolve()));
        ws.once('error', reject);
      });
      return child;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`${kind} did not start`);
}

/**
 * Opens `sessions` WebSockets, sends each one user_text at once and waits for every
 * assistant_end; returns the latency of each delta received (ms).
 */
async function runSessions(port, sessions, text) {
  const latencies = [];
  const clients = await Promise.all(
    Array.from({ length: sessions }, () => new Promise((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`);
      ws.once('message', () => resolve(ws));
      ws.once('error', reject);
    })),
  );
  await Promise.all(clients.map((ws) => new Promise((resolve) => {
    ws.on('message', (data) => {
      const now = wallClock();
      const frame = data.toString();
      if (frame.startsWith('{"type":"assistant_end"')) return resolve();
      for (const m of frame.matchAll(/t=(\d+\.\d+);/g)) latencies.push(now - Number(m[1]));
    });
    // A target that drops the connection (or dies) loses the rest of the deltas; it does not hang the bench.
    ws.once('close', resolve);
    ws.send(JSON.stringify({ type: 'user_text', text }));
  })));
  await Promise.all(clients.map((ws) => ws.readyState === WebSocket.CLOSED ? undefined : new Promise((resolve) => (ws.once('close', resolve), ws.close()))));
  return latencies;
}

/** One target: started, warmed up by a short round of the same sessions, then measured. */
async function measure(kind, llmUrl, sessions, port) {
  const child = await startTarget(kind, llmUrl, port);
  await runSessions(port, sessions, 'warm up');
  const idle = rssKb(child.pid);
  const cpu0 = cpuMs(child.pid);
  let peak = idle;
  const sampler = setInterval(() => (peak = Math.max(peak, rssKb(child.pid))), 200);
  const latencies = await runSessions(port, sessions, 'go');
  clearInterval(sampler);
  const cpu1 = cpuMs(child.pid);
  child.kill('SIGINT');
  await new Promise((r) => child.once('exit', r));
  latencies.sort((a, b) => a - b);
  const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
  const perDelta = (ms) => (ms * 1000) / (sessions * DELTAS);
  return {
    p50: pct(50),
    p99: pct(99),
    lost: sessions * DELTAS - latencies.length,
    rssPerSessionKb: (peak - idle) / sessions,
    userUs: perDelta(cpu1.user - cpu0.user),
    sysUs: perDelta(cpu1.sys - cpu0.sys),
    mainUs: perDelta(cpu1.main - cpu0.main),
  };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
/** The median of each figure over the rounds; lost deltas are summed. */
const summary = (runs) => Object.fromEntries(Object.keys(runs[0]).map((k) => [k, k === 'lost' ? sum(runs.map((r) => r[k])) : median(runs.map((r) => r[k]))]));

const { server, url } = await fakeLlm();
console.log(`${DELTAS} deltas per session, one per ${INTERVAL_MS} ms; latency = fake LLM write → WS client receive`);
console.log(`${ROUNDS} rounds per size, the three targets in turn (order rotated each round); each target serves a warm-up of ${WARMUP_DELTAS} deltas per session first; medians over the rounds`);
let port = 19000 + Math.floor(Math.random() * 1000);
const f = (x) => x.toFixed(2);
const line = (name, r) =>
  `  ${name}: p50 ${f(r.p50)} ms  p99 ${f(r.p99)} ms  lost ${r.lost}  RSS/session ${f(r.rssPerSessionKb)} KiB  CPU/delta ${f(r.userUs + r.sysUs)} µs (user ${f(r.userUs)}, system ${f(r.sysUs)}; JS thread ${f(r.mainUs)})`;
const ratios = (runs, base, key) => runs.engine.map((e, i) => e[key] / runs[base][i][key]);
const ratioLine = (runs, base) => {
  const p50 = ratios(runs, base, 'p50');
  const p99 = ratios(runs, base, 'p99');
  return `p50 ${f(median(p50))}x  p99 ${f(median(p99))}x  (rounds: p50 ${p50.map(f).join(', ')}; p99 ${p99.map(f).join(', ')})`;
};
const KINDS = (process.env.TARGETS ?? 'relay,json,engine').split(',');
for (const n of SIZES) {
  const runs = Object.fromEntries(KINDS.map((kind) => [kind, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < KINDS.length; k++) {
      const kind = KINDS[(k + round) % KINDS.length];
      runs[kind].push(await measure(kind, url, n, port++));
    }
  }
  console.log(`\n${n} sessions`);
  const names = { relay: 'relay      ', json: 'json relay ', engine: 'engine     ' };
  for (const kind of KINDS) console.log(line(names[kind], summary(runs[kind])));
  if (runs.engine && runs.relay) console.log(`  ratio engine/relay, median of the rounds: ${ratioLine(runs, 'relay')}  (goal <= 1.3x)`);
  if (runs.engine && runs.json) console.log(`  ratio engine/json relay, median of the rounds: ${ratioLine(runs, 'json')}`);
}
server.kill();
