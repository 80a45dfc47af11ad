// What bench/relay.bench.mjs and bench/ab.bench.mjs share: the fake LLM, starting a target
// process, driving WebSocket sessions through it, and reading a process's CPU and memory.
import { spawn } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import WebSocket from 'ws';

export const sum = (values) => values.reduce((a, b) => a + b, 0);

export const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** The value at percentile `p` of ascending `sorted`. */
export const percentile = (sorted, p) => sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** The fake LLM (bench/fake-sse-server.mjs) in its own process, so the clients here do not compete with it. */
export function fakeLlm({ deltas, warmupDeltas, intervalMs, env = {} }) {
  const child = spawn(process.execPath, ['bench/fake-sse-server.mjs'], {
    env: { ...process.env, ...env, DELTAS: String(deltas), WARMUP_DELTAS: String(warmupDeltas), INTERVAL_MS: String(intervalMs) },
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
export function cpuMs(pid) {
  const pids = tree(pid);
  const stats = pids.map((p) => stat(`/proc/${p}/stat`)).filter(Boolean);
  const mains = pids.map((p) => stat(`/proc/${p}/task/${p}/stat`)).filter(Boolean);
  const ticks = (list, field) => sum(list.map((f) => Number(f[field]) * 10));
  return {
    user: ticks(stats, 11),
    sys: ticks(stats, 12),
    main: ticks(mains, 11) + ticks(mains, 12),
    preempted: sum(pids.map((p) => preemptions(p))),
  };
}

/** Times a process's JavaScript thread was taken off the CPU while it could still run. */
function preemptions(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/task/${pid}/status`, 'utf8');
    return Number(/nonvoluntary_ctxt_switches:\s+(\d+)/.exec(status)?.[1] ?? 0);
  } catch {
    return 0;
  }
}

export function rssKb(pid) {
  return sum(tree(pid).map((p) => {
    try {
      const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'));
      return m ? Number(m[1]) : 0;
    } catch {
      return 0;
    }
  }));
}

/**
 * Starts `script` with node `flags` on `port` (the engine's settings for a bench in the
 * environment) and resolves once its /ws answers. Its standard output goes to `log`.
 */
export async function startTarget({ script, flags = [], env = {}, port, llmUrl, log }) {
  const child = spawn(process.execPath, [...flags, script], {
    env: { ...process.env, ENGINE_PROCESSES: '1', PORT: String(port), LLM_BASE_URL: llmUrl, LLM_MODEL: 'fake', LOG_LEVEL: 'warn', WS_PING_INTERVAL_SECS: '0', TTS_PROVIDER: 'none', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  child.stdout.pipe(createWriteStream(log));
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
  throw new Error(`${script} did not start`);
}

/**
 * The built engine started with `env`, `turns` turns held on it one after another (`turn(port)`
 * gives each one's ms; `warmup` of them first, not counted), then stopped: their median.
 */
export async function medianTurn({ port, llmUrl, env, log, turns, turn, warmup = 0 }) {
  const child = await startTarget({ script: 'dist/main.js', port, llmUrl, env, log });
  const times = [];
  for (let i = 0; i < warmup; i++) await turn(port);
  for (let i = 0; i < turns; i++) times.push(await turn(port));
  await stopTarget(child);
  return median(times);
}

export async function stopTarget(child) {
  child.kill('SIGINT');
  await new Promise((r) => child.once('exit', r));
}

/** `count` WebSockets to the target on `port`, each open once its first message (`session`) came. */
export function openSessions(port, count) {
  return Promise.all(
    Array.from({ length: count }, () => new Promise((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`);
      ws.once('message', () => resolve(ws));
      ws.once('error', reject);
    })),
  );
}

/** Closes `sockets`, settling once each is closed. */
export function closeAll(sockets) {
  return Promise.all(sockets.map((ws) => ws.readyState === WebSocket.CLOSED ? undefined : new Promise((resolve) => (ws.once('close', resolve), ws.close()))));
}

/** Deltas at the start of each session: they meet the burst of every session's turn starting at once. */
export const START_DELTAS = 10;

/**
 * Opens `sessions` WebSockets, sends each one user_text at once and waits for every
 * assistant_end; returns the latency of each delta received (ms, fake LLM write → receive), sorted,
 * with `streaming`: those of the deltas after each session's first START_DELTAS, sorted, and
 * `firstDelta`: for each session, the time from its user_text to its first delta (sorted; it
 * includes the fake LLM's wait before its first delta, and the turn start of the target).
 */
export async function runSessions(port, sessions, text) {
  const latencies = [];
  const streaming = [];
  const firstDelta = [];
  const clients = await openSessions(port, sessions);
  await Promise.all(clients.map((ws) => new Promise((resolve) => {
    let received = 0;
    const sentAt = wallClock();
    ws.on('message', (data) => {
      const now = wallClock();
      const frame = data.toString();
      if (frame.startsWith('{"type":"assistant_end"')) return resolve();
      for (const m of frame.matchAll(/t=(\d+\.\d+);/g)) {
        if (received === 0) firstDelta.push(now - sentAt);
        latencies.push(now - Number(m[1]));
        if (received++ >= START_DELTAS) streaming.push(now - Number(m[1]));
      }
    });
    // A target that drops the connection (or dies) loses the rest of the deltas; it does not hang the bench.
    ws.once('close', resolve);
    ws.send(JSON.stringify({ type: 'user_text', text }));
  })));
  await closeAll(clients);
  latencies.sort((a, b) => a - b);
  latencies.streaming = streaming.sort((a, b) => a - b);
  latencies.firstDelta = firstDelta.sort((a, b) => a - b);
  return latencies;
}

/** A process's inspector on `port` (node --inspect): `ask(method, params)` answers its DevTools protocol. */
export async function inspectorAt(port) {
  const [target] = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
  const ws = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((r, j) => (ws.once('open', r), ws.once('error', j)));
  let nextId = 1;
  const ask = (method, params = {}) => new Promise((resolve, reject) => {
    const id = nextId++;
    const onMessage = (data) => {
      const reply = JSON.parse(data.toString());
      if (reply.id !== id) return;
      ws.off('message', onMessage);
      reply.error ? reject(new Error(reply.error.message)) : resolve(reply.result);
    };
    ws.on('message', onMessage);
    ws.send(JSON.stringify({ id, method, params }));
  });
  return { ask, close: () => ws.close() };
}

const sseChunk = (content, finish = null) =>
  `data: ${JSON.stringify({ choices: [{ index: 0, delta: content === undefined ? {} : { content }, finish_reason: finish }] })}\n\n`;

/**
 * Answers a chat completion request with `text` as a model streams it: after `delayMs` (its
 * prefill), a token of 4 characters every `tokenMs` ms, then its end.
 */
export function streamAnswer(res, text, { tokenMs, delayMs = 0 }) {
  res.writeHead(200, { 'Content-Type': 'text/event-stream' });
  let at = 0;
  let timer;
  const start = setTimeout(() => {
    timer = setInterval(() => {
      if (at >= text.length) {
        clearInterval(timer);
        return res.end(`${sseChunk(undefined, 'stop')}data: [DONE]\n\n`);
      }
      res.write(sseChunk(text.slice(at, at + 4)));
      at += 4;
    }, tokenMs);
  }, delayMs);
  res.on('close', () => (clearTimeout(start), clearInterval(timer)));
}
