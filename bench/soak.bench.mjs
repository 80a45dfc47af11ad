// Memory over time: does the engine give back what its sessions took? WAVES waves of SESSIONS
// sessions each (at the same time): a session connects, has TURNS turns — each one a round where
// the model calls an HTTP tool (the call in Qwen3-Coder markup in its text, a loopback server
// answering), then a streamed answer of DELTAS deltas — and closes. After each wave, the engine's
// JavaScript heap is measured after a full garbage collection (through the inspector, as a heap
// snapshot tool would), with its RSS. The first WARMUP waves fill what a running engine keeps
// anyway (compiled code, pools, caches); the bench prints the heap kept per session over the
// waves after them (a line fitted through the heaps; goal: under 1 KB a session — nothing kept),
// and checks that every turn ended and every call ran. First, what an idle open session (with
// TWILIO=1, an idle call) holds.
//
// Run: npm run bench:soak. Settings (environment):
// - SESSIONS (200), WAVES (8), WARMUP (2), TURNS (2), DELTAS (20);
// - SESSION_RESUME_SECS (0: a closed session is not kept for resuming; kept sessions are memory by
//   design, let go when their time is up, swept every 30 s; with SESSION_STORE_URL, in Redis);
// - ENGINE_FLAGS: node's flags for the engine (`--cpu-prof --cpu-prof-dir=/tmp/prof`: where a
//   turn's time goes);
// - SNAPSHOT_DIR: heap snapshots of the engine after the first wave past the warm-up and after the
//   last, to compare (Chrome's DevTools);
// - CODE_TOOLS=1: the model calls a Python code tool instead, which keeps the words in the
//   session's `context.state` and calls `echo` through `tools.echo`;
// - TOOL_SETS (0): tool sets installed over `POST /api/tools` before each wave, each with `echo`
//   under limits of its own, tools of names and schemas never seen before and an operation of an
//   OpenAPI document written for it, so that what the engine keeps per tool set shows too;
// - SPEECH=1: voice sessions, the answers spoken by the embedded eSpeak NG (audio events counted);
// - MCP=1: the model calls an MCP tool instead (the test suite's stdio server, run by the engine);
// - CLIENT_TOOLS=1: each session declares a client tool of a schema of its own, which the model
//   calls and the session answers;
// - SESSION_SETTINGS=1: each session sets instructions and a variable of its own, which the HTTP
//   tool sends in a header;
// - AUDIO_IN=1: the user speaks each turn (half a second of PCM, then `audio_end`), transcribed by
//   a speech-to-text server the bench runs;
// - RESUME=1: each turn on a connection of its own, each after the first resuming the session
//   (`?resume=`; SESSION_RESUME_SECS then 60 unless set; with SESSION_STORE_URL, kept in Redis);
// - TWILIO=1: each session a phone call on `/twilio` as Twilio's Media Streams carry it (the
//   engine bridging it to a voice session of its own): each turn the caller's sentence in μ-law
//   and a second of silence, heard by the engine's voice activity detection, transcribed, answered
//   in speech by eSpeak NG; the caller speaks again over the answer (a `clear`), and hangs up
//   (`stop`) after the last (turns counted at the servers: transcriptions, tool requests);
// - ENGINE_PROCESSES (1): with more, the heaps of the primary and of every engine process summed
//   (SNAPSHOT_DIR then snapshots the last engine process).
// The engine's standard output goes to /tmp/soak-bench-engine.log.
import { join } from 'node:path';
import WebSocket from 'ws';
import { closeAll, fakeLlm, inspectorAt, openSessions, rssKb, startTarget, stopTarget } from './harness.mjs';
import { clientTool, FRAME, openCalls, phoneCall, sessionsOpen, soakWorld } from './soak-world.mjs';

const SESSIONS = Number(process.env.SESSIONS ?? 200);
const WAVES = Number(process.env.WAVES ?? 8);
const WARMUP = Number(process.env.WARMUP ?? 2);
const TURNS = Number(process.env.TURNS ?? 2);
const DELTAS = Number(process.env.DELTAS ?? 20);
const TOOL_SETS = Number(process.env.TOOL_SETS ?? 0);
const PROCESSES = Number(process.env.ENGINE_PROCESSES ?? 1);
const on = (name) => process.env[name] === '1';
const [SPEECH, CODE_TOOLS, MCP, CLIENT_TOOLS, SETTINGS, AUDIO_IN, RESUME, TWILIO] = ['SPEECH', 'CODE_TOOLS', 'MCP', 'CLIENT_TOOLS', 'SESSION_SETTINGS', 'AUDIO_IN', 'RESUME', 'TWILIO'].map(on);
const PORT = 18790;
const INSPECTOR_PORT = 19229;
/** Resolves once no session is open on the engine (a call's is closed after its stream). */
const settled = () => sessionsOpen(PORT, (open) => open === 0);

const world = await soakWorld({ codeTools: CODE_TOOLS, mcp: MCP, sessionSettings: SETTINGS });
let toolSets = 0;
async function installToolSets(count) {
  for (let i = 0; i < count; i++) {
    const res = await fetch(`http://127.0.0.1:${PORT}/api/tools`, { method: 'POST', body: JSON.stringify(world.toolSet(toolSets++)) });
    if (!res.ok) throw new Error(`POST /api/tools: ${res.status} ${await res.text()}`);
  }
}

const toolName = CLIENT_TOOLS ? 'pick' : world.toolName;
const { server: llm, url: llmUrl } = await fakeLlm({ deltas: DELTAS, warmupDeltas: DELTAS, intervalMs: 5, env: { TOOL_CALLS: '1', TOOL_NAME: toolName } });
const engine = await startTarget({
  script: 'dist/main.js',
  flags: [
    `--inspect=127.0.0.1:${INSPECTOR_PORT}`,
    ...(process.env.ENGINE_FLAGS ?? '').split(' ').filter(Boolean),
  ],
  env: {
    ENGINE_PROCESSES: String(PROCESSES),
    ...((SPEECH || TWILIO) && { TTS_PROVIDER: 'espeak' }),
    ...(AUDIO_IN && { STT_BASE_URL: world.sttUrl, VAD_SILENCE_MS: '0' }),
    ...(TWILIO && { STT_BASE_URL: world.sttUrl }),
    LLM_TOOLS_FILE: world.toolsFile,
    SESSION_RESUME_SECS: process.env.SESSION_RESUME_SECS ?? (RESUME ? '60' : '0'),
    WS_MAX_SESSIONS: String(SESSIONS + 10),
  },
  port: PORT,
  llmUrl,
  log: '/tmp/soak-bench-engine.log',
});

// A bench that fails leaves no engine behind on its ports.
process.on('exit', () => (engine.kill(), llm.kill()));

// With ENGINE_PROCESSES above 1, the primary's inspector is on INSPECTOR_PORT and each engine
// process's on the ports after it.
const inspectors = await Promise.all(
  Array.from({ length: PROCESSES > 1 ? PROCESSES + 1 : 1 }, (_, i) => inspectorAt(INSPECTOR_PORT + i)),
);
const ask = (method, params) => inspectors.at(-1).ask(method, params);
/** After a full GC in every process: their process.memoryUsage() summed, and their RSS. */
async function memory() {
  const sum = { heapUsed: 0, external: 0, rssKb: rssKb(engine.pid) };
  for (const inspector of inspectors) {
    for (let i = 0; i < 3; i++) await inspector.ask('HeapProfiler.collectGarbage');
    const { result } = await inspector.ask('Runtime.evaluate', { expression: 'JSON.stringify(process.memoryUsage())', returnByValue: true });
    const usage = JSON.parse(result.value);
    sum.heapUsed += usage.heapUsed;
    sum.external += usage.external;
  }
  return sum;
}

/**
 * One connection: `turnsHere` turns, each waited for to its assistant_end (or, in a voice session,
 * to the first audio of its answer), counting what it got; resolves with the session's resume
 * token once closed. `first`: the session's first connection (which sets its settings).
 */
const got = { ends: 0, calls: 0, results: 0, deltas: 0, audio: 0, clears: 0, transcripts: 0, resumed: 0, errors: [] };
let sessionsOpened = 0;
function connection(token, turnsHere, first) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${PORT}/ws${token ? `?resume=${encodeURIComponent(token)}` : ''}`);
    let turns = 0;
    let ended = false;
    let kept;
    ws.on('message', (data, binary) => {
      if (binary) return void got.audio++;
      const event = JSON.parse(data.toString());
      if (event.type === 'session') (kept = event.resume_token), (got.resumed += event.resumed ? 1 : 0);
      if (event.type === 'session' && first && (SPEECH || CLIENT_TOOLS || SETTINGS || AUDIO_IN)) {
        const n = sessionsOpened++;
        const update = {
          type: 'session.update',
          ...((SPEECH || AUDIO_IN) && { modality: 'voice' }),
          ...(CLIENT_TOOLS && { client_tools: [clientTool(n)] }),
          ...(SETTINGS && { instructions: `The caller is customer ${n}.`, variables: { customer: `c${n}` } }),
        };
        return ws.send(JSON.stringify(update));
      }
      if (event.type === 'client_tool_call') return ws.send(JSON.stringify({ type: 'client_tool_result', id: event.id, result: { picked: event.arguments.word } }));
      if (event.type === 'assistant_end' && !event.heard) (got.ends++, (ended = true));
      // A voice session's user speaks again once the answer's speech has begun (a barge-in: the
      // rest of it is cut, as a caller does; its audio is paced as it is played).
      const over = ended && (!SPEECH || event.type === 'audio');
      if (event.type === 'session.updated' || event.type === 'session' || over) {
        ended = false;
        if (turns++ === turnsHere) return ws.close();
        if (!AUDIO_IN) return ws.send(JSON.stringify({ type: 'user_text', text: `turn ${turns}` }));
        // Half a second of the user's audio, then its end (VAD_SILENCE_MS=0: the client says so).
        for (let i = 0; i < 25; i++) ws.send(FRAME);
        ws.send(JSON.stringify({ type: 'audio_end' }));
      } else if (event.type === 'tool_call') got.calls++;
      else if (event.type === 'tool_result') got.results += event.ok ? 1 : 0;
      else if (event.type === 'assistant_delta') got.deltas += (event.text.match(/t=/g) ?? []).length;
      else if (event.type === 'audio') got.audio++;
      else if (event.type === 'transcript') got.transcripts++;
      else if (event.type === 'error') got.errors.push(event.message);
    });
    ws.once('close', () => resolve(kept));
    ws.once('error', reject);
  });
}

/** One session: TURNS turns on one connection, or with RESUME=1 each on a connection resuming it. */
async function session() {
  if (TWILIO) return void (await phoneCall(`ws://127.0.0.1:${PORT}/twilio`, TURNS, got));
  const perConnection = RESUME ? 1 : TURNS;
  let token;
  for (let done = 0; done < TURNS; done += perConnection) token = await connection(token, perConnection, done === 0);
}

const MiB = (bytes) => (bytes / 1048576).toFixed(1);
const heaps = [];
const rss = [];
console.log(`${WAVES} waves of ${SESSIONS} sessions, ${TURNS} turns each (a tool call, then ${DELTAS} deltas)${TOOL_SETS ? `, ${TOOL_SETS} tool sets installed before each` : ''}`);
/** What an open session holds while idle: SESSIONS connections opened at once, measured, closed. */
async function idleCost() {
  const open = () => (TWILIO ? openCalls(PORT, SESSIONS) : openSessions(PORT, SESSIONS));
  await closeAll(await open()); // warms the path
  await settled(); // the closed sessions gone
  const before = await memory();
  const idle = await open();
  const after = await memory();
  await closeAll(idle);
  await settled();
  const kib = (bytes) => (bytes / SESSIONS / 1024).toFixed(1);
  console.log(`an idle open ${TWILIO ? 'call (its session and the bridge to it)' : 'session'}: heap ${kib(after.heapUsed - before.heapUsed)} KiB, RSS ${kib((after.rssKb - before.rssKb) * 1024)} KiB`);
}
await idleCost();
console.log('wave  sessions  heap used MiB  external MiB  RSS MiB');
for (let wave = 1; wave <= WAVES; wave++) {
  await installToolSets(TOOL_SETS);
  await Promise.all(Array.from({ length: SESSIONS }, session));
  const m = await memory();
  if (process.env.SNAPSHOT_DIR && (wave === WARMUP + 1 || wave === WAVES)) {
    const path = join(process.env.SNAPSHOT_DIR, `engine-wave-${wave}.heapsnapshot`);
    await ask('Runtime.evaluate', { expression: `process.getBuiltinModule('v8').writeHeapSnapshot(${JSON.stringify(path)})`, returnByValue: true });
  }
  if (wave > WARMUP) (heaps.push([wave * SESSIONS, m.heapUsed]), rss.push([wave * SESSIONS, m.rssKb * 1024]));
  console.log(`${String(wave).padStart(4)}  ${String(wave * SESSIONS).padStart(8)}  ${MiB(m.heapUsed).padStart(13)}  ${MiB(m.external).padStart(12)}  ${MiB(m.rssKb * 1024).padStart(7)}${wave <= WARMUP ? '  (warm-up)' : ''}`);
}

if (heaps.length < 2) throw new Error('WAVES must be at least WARMUP + 2 to fit a line');
/** Least squares: bytes against sessions served, over the waves after the warm-up. */
function slopeOf(points) {
  const mx = points.reduce((a, [x]) => a + x, 0) / points.length;
  const my = points.reduce((a, [, y]) => a + y, 0) / points.length;
  return points.reduce((a, [x, y]) => a + (x - mx) * (y - my), 0) / points.reduce((a, [x]) => a + (x - mx) ** 2, 0);
}
const slope = slopeOf(heaps);
const expected = WAVES * SESSIONS * TURNS;
// A call's turns are counted where they are seen: at the speech-to-text and tool servers (a
// call gets no text: its deltas are not counted).
if (TWILIO) Object.assign(got, { ends: world.counts.transcriptions, calls: world.counts.toolRequests });
console.log(`heap kept per session after the warm-up: ${slope.toFixed(0)} bytes (goal: under 1024); RSS: ${slopeOf(rss).toFixed(0)} bytes (the process tree's memory: buffers, sockets, the code tools' workers, an MCP server's process)${TOOL_SETS ? `; per tool set: ${((slope * SESSIONS) / TOOL_SETS).toFixed(0)} bytes` : ''}`);
console.log(`turns ended ${got.ends}/${expected}, tool calls ${got.calls}/${expected}, ok results ${got.results}, tool requests ${world.counts.toolRequests}, deltas ${got.deltas}/${expected * DELTAS}, audio frames ${got.audio}, clears ${got.clears}, transcripts ${got.transcripts}, resumed ${got.resumed}, errors ${got.errors.length}${got.errors.length ? `: ${got.errors[0]}` : ''}`);

for (const inspector of inspectors) inspector.close();
await stopTarget(engine);
llm.kill();
world.close();
if (got.ends !== expected || got.calls !== expected || (!TWILIO && got.deltas !== expected * DELTAS)) process.exitCode = 1;
