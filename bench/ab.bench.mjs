// Two targets side by side: A and B run at the same time, each with its own N sessions streaming
// from one fake LLM, so both meet the same machine noise; the figures that matter are the ratios
// B/A of each round. On a noisy machine this tells two builds apart where runs in turn cannot:
// the same engine, run in turn, varied by up to ±15% in CPU per delta; side by side against
// itself, by ±5–8% per round.
//
// Run: npm run bench:ab. Settings (environment):
//   A, B    the scripts (default bench/relay-pipe.mjs and dist/main.js). To compare two engine
//           builds, copy one build inside this checkout first (`cp -r dist dist-base`; .gitignore
//           leaves dist-*/ out), then A=dist-base/main.js.
//   AF, BF  node flags for A or B (e.g. BF=--max-semi-space-size=2).
//   N (50 sessions each), ROUNDS (5), DELTAS (200). RELAY=json makes bench/relay-pipe.mjs the
//   JSON relay. Each target's standard output goes to /tmp/ab-bench-a.log and -b.log.
import { cpuMs, fakeLlm, median, percentile, runSessions, startTarget, stopTarget } from './harness.mjs';

const N = Number(process.env.N ?? 50);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const DELTAS = Number(process.env.DELTAS ?? 200);
const targets = [
  { name: 'A', script: process.env.A ?? 'bench/relay-pipe.mjs', flags: (process.env.AF ?? '').split(' ').filter(Boolean) },
  { name: 'B', script: process.env.B ?? 'dist/main.js', flags: (process.env.BF ?? '').split(' ').filter(Boolean) },
];

/** One round: both started, warmed up, then measured at once. */
async function round(llmUrl, port) {
  const children = await Promise.all(targets.map((t, i) =>
    startTarget({ script: t.script, flags: t.flags, port: port + i, llmUrl, log: `/tmp/ab-bench-${t.name.toLowerCase()}.log` })));
  await Promise.all(targets.map((_, i) => runSessions(port + i, N, 'warm up')));
  const before = children.map((c) => cpuMs(c.pid).main);
  const latencies = await Promise.all(targets.map((_, i) => runSessions(port + i, N, 'go')));
  const after = children.map((c) => cpuMs(c.pid).main);
  await Promise.all(children.map(stopTarget));
  return targets.map((_, i) => ({
    cpu: ((after[i] - before[i]) * 1000) / (N * DELTAS),
    p50: percentile(latencies[i], 50),
    p99: percentile(latencies[i], 99),
    lost: N * DELTAS - latencies[i].length,
  }));
}

const { server, url } = await fakeLlm({ deltas: DELTAS, warmupDeltas: 50, intervalMs: 20 });
console.log(`A = ${targets[0].script} ${targets[0].flags.join(' ')}\nB = ${targets[1].script} ${targets[1].flags.join(' ')}`);
console.log(`${N} sessions each, at the same time; ${DELTAS} deltas per session, one per 20 ms; JS-thread CPU per delta; latency = fake LLM write → WS client receive`);
const f = (x) => x.toFixed(2);
const rounds = [];
let port = 21000 + Math.floor(Math.random() * 1000);
for (let r = 0; r < ROUNDS; r++, port += 2) {
  const [a, b] = await round(url, port);
  rounds.push({ a, b });
  console.log(`round ${r + 1}: A ${f(a.cpu)} µs, p50 ${f(a.p50)} ms, p99 ${f(a.p99)} ms | B ${f(b.cpu)} µs, p50 ${f(b.p50)} ms, p99 ${f(b.p99)} ms | B/A CPU ${f(b.cpu / a.cpu)}x`);
  if (a.lost || b.lost) console.log(`  lost deltas: A ${a.lost}, B ${b.lost}`);
}
const ratio = (key) => f(median(rounds.map(({ a, b }) => b[key] / a[key])));
console.log(`B/A, median of the rounds: CPU per delta ${ratio('cpu')}x, p50 ${ratio('p50')}x, p99 ${ratio('p99')}x`);
server.kill();
