// Engine vs a bare SSE→WS relay, measured in the same run: N sessions each stream a 200-delta
// answer from a fake LLM at one delta per 20 ms. Latency per delta = fake server write → client
// receive. A second baseline, the JSON relay, also parses the SSE and the JSON and sends one
// assistant_delta frame per delta: the least any engine that reads the stream must do. Prints
// p50/p99, the ratios, CPU per delta (and that of the JavaScript thread alone), RSS per session
// of the process under test, and the time from each session's user_text to its first delta (the
// turn start's share, with the fake LLM's wait of one interval). The fake LLM runs in a process of its own; times are wall-clock
// (performance.timeOrigin + now), comparable across processes on one machine.
//
// Each target first serves a warm-up round (the same sessions, WARMUP_DELTAS deltas each, not
// measured), as a long-running server is warm. The targets run in turn, ROUNDS times, the order
// rotated each round, and the figures are medians over the rounds: a busy spell of the machine
// then hits one round, not one target.
//
// Run: npm run bench:relay. Settings (environment): SESSIONS (100,500), ROUNDS (3), DELTAS (200), WARMUP_DELTAS (50),
// TARGETS (relay,json,engine), ENGINE_PROCESSES (the engine only; CPU and RSS are summed over its
// processes), PROFILE=relay|json|engine (a CPU profile in /tmp/prof), TARGET_FLAGS and
// ENGINE_FLAGS (node flags for every target, or the engine only, e.g. --trace-gc), ENGINE_SCRIPT
// (default dist/main.js: another build copied into dist-*/ to compare), BUSY_US (the JSON relay's extra work a delta, µs; see relay-pipe.mjs). Each target's
// standard output goes to /tmp/relay-bench-<target>.log.
import { cpuMs, fakeLlm, median, percentile, rssKb, runSessions, START_DELTAS, startTarget, stopTarget, sum } from './harness.mjs';

const DELTAS = Number(process.env.DELTAS ?? 200);
const INTERVAL_MS = 20;
const SIZES = (process.env.SESSIONS ?? '100,500').split(',').map(Number);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const WARMUP_DELTAS = Number(process.env.WARMUP_DELTAS ?? 50);

function start(kind, llmUrl, port) {
  const flags = [
    ...(process.env.PROFILE === kind ? ['--cpu-prof', '--cpu-prof-dir=/tmp/prof'] : []),
    ...(process.env.TARGET_FLAGS ?? '').split(' ').filter(Boolean),
    ...(kind === 'engine' ? (process.env.ENGINE_FLAGS ?? '').split(' ').filter(Boolean) : []),
  ];
  return startTarget({
    script: kind === 'engine' ? (process.env.ENGINE_SCRIPT ?? 'dist/main.js') : 'bench/relay-pipe.mjs',
    flags,
    env: { ENGINE_PROCESSES: kind === 'engine' ? (process.env.ENGINE_PROCESSES ?? '1') : '1', RELAY: kind === 'json' ? 'json' : 'pipe' },
    port,
    llmUrl,
    // Its standard output (logs, or what ENGINE_FLAGS such as --trace-gc print) goes to a file.
    log: `/tmp/relay-bench-${kind}.log`,
  });
}

/** One target: started, warmed up by a short round of the same sessions, then measured. */
async function measure(kind, llmUrl, sessions, port) {
  const child = await start(kind, llmUrl, port);
  await runSessions(port, sessions, 'warm up');
  const idle = rssKb(child.pid);
  const cpu0 = cpuMs(child.pid);
  let peak = idle;
  const sampler = setInterval(() => (peak = Math.max(peak, rssKb(child.pid))), 200);
  const latencies = await runSessions(port, sessions, 'go');
  clearInterval(sampler);
  const cpu1 = cpuMs(child.pid);
  await stopTarget(child);
  const perDelta = (ms) => (ms * 1000) / (sessions * DELTAS);
  return {
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    streamingP99: percentile(latencies.streaming, 99),
    firstP50: percentile(latencies.firstDelta, 50),
    firstP99: percentile(latencies.firstDelta, 99),
    lost: sessions * DELTAS - latencies.length,
    rssPerSessionKb: (peak - idle) / sessions,
    userUs: perDelta(cpu1.user - cpu0.user),
    sysUs: perDelta(cpu1.sys - cpu0.sys),
    mainUs: perDelta(cpu1.main - cpu0.main),
    preemptedPer100: ((cpu1.preempted - cpu0.preempted) * 100) / (sessions * DELTAS),
  };
}

/** The median of each figure over the rounds; lost deltas are summed. */
const summary = (runs) => Object.fromEntries(Object.keys(runs[0]).map((k) => [k, k === 'lost' ? sum(runs.map((r) => r[k])) : median(runs.map((r) => r[k]))]));

const { server, url } = await fakeLlm({ deltas: DELTAS, warmupDeltas: WARMUP_DELTAS, intervalMs: INTERVAL_MS });
console.log(`${DELTAS} deltas per session, one per ${INTERVAL_MS} ms; latency = fake LLM write → WS client receive`);
console.log(`${ROUNDS} rounds per size, the three targets in turn (order rotated each round); each target serves a warm-up of ${WARMUP_DELTAS} deltas per session first; medians over the rounds`);
let port = 19000 + Math.floor(Math.random() * 1000);
const f = (x) => x.toFixed(2);
const line = (name, r) =>
  `  ${name}: p50 ${f(r.p50)} ms  p99 ${f(r.p99)} ms (${f(r.streamingP99)} after each session's first ${START_DELTAS} deltas)  first delta after user_text p50 ${f(r.firstP50)} / p99 ${f(r.firstP99)} ms  lost ${r.lost}  RSS/session ${f(r.rssPerSessionKb)} KiB  CPU/delta ${f(r.userUs + r.sysUs)} µs (user ${f(r.userUs)}, system ${f(r.sysUs)}; JS thread ${f(r.mainUs)}; preempted ${f(r.preemptedPer100)} times per 100 deltas)`;
const ratios = (runs, kind, base, key) => runs[kind].map((e, i) => e[key] / runs[base][i][key]);
const ratioLine = (runs, kind, base) => {
  const p50 = ratios(runs, kind, base, 'p50');
  const p99 = ratios(runs, kind, base, 'p99');
  const streaming = ratios(runs, kind, base, 'streamingP99');
  return `p50 ${f(median(p50))}x  p99 ${f(median(p99))}x  (rounds: p50 ${p50.map(f).join(', ')}; p99 ${p99.map(f).join(', ')}); p99 after the first ${START_DELTAS} deltas ${f(median(streaming))}x`;
};
const KINDS = (process.env.TARGETS ?? 'relay,json,engine').split(',');
// The fake LLM goes with the bench, also when a target fails.
try {
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
    if (runs.engine && runs.relay) console.log(`  ratio engine/relay, median of the rounds: ${ratioLine(runs, 'engine', 'relay')}  (goal <= 1.3x)`);
    if (runs.engine && runs.json) console.log(`  ratio engine/json relay, median of the rounds: ${ratioLine(runs, 'engine', 'json')}`);
    // The floor: what parsing each delta and sending it as a frame of its own costs against the pipe.
    if (runs.json && runs.relay) console.log(`  ratio json relay/relay, median of the rounds: ${ratioLine(runs, 'json', 'relay')}`);
  }
} finally {
  server.kill();
}
