// What a phone call costs while the caller's audio streams: CALLS calls at once, each sending a
// 20 ms frame of 8 kHz μ-law every 20 ms for DURATION_SECS (a quiet line: voice activity
// detection runs on every frame, nothing is said), the engine's CPU time measured over them. In
// the same run and on the same engine, the same audio through the two ways a call reaches it:
// `/twilio` (Twilio's Media Streams: JSON frames, bridged to a session of the engine's own) and
// `/ws` (a gateway's G.711 session sending binary frames), with the ratio of the two. The order of
// the two is turned each round (ROUNDS); medians over the rounds.
//
// Run: npm run bench:calls. Settings: CALLS (200), DURATION_SECS (10), ROUNDS (3); ENGINE_FLAGS:
// node's flags for the engine (`--cpu-prof --cpu-prof-dir=/tmp/prof`). The engine's standard
// output goes to /tmp/calls-bench-engine.log.
import WebSocket from 'ws';
import { closeAll, cpuMs, fakeLlm, startTarget, stopTarget } from './harness.mjs';
import { openCalls, sessionsOpen, soakWorld } from './soak-world.mjs';

const CALLS = Number(process.env.CALLS ?? 200);
const DURATION_SECS = Number(process.env.DURATION_SECS ?? 10);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const PORT = 18791;
/** 20 ms of a quiet telephone line, μ-law (0xff is zero; a little noise on it). */
const FRAME = Buffer.alloc(160, 0xff);
for (let i = 0; i < 160; i += 7) FRAME[i] = 0xfe;

const world = await soakWorld({});
const { server: llm, url: llmUrl } = await fakeLlm({ deltas: 5, warmupDeltas: 5, intervalMs: 5 });
const engine = await startTarget({
  script: 'dist/main.js',
  flags: process.env.ENGINE_FLAGS?.split(' ').filter(Boolean) ?? [],
  env: { TTS_PROVIDER: 'espeak', STT_BASE_URL: world.sttUrl, WS_MAX_SESSIONS: String(CALLS + 10) },
  port: PORT,
  llmUrl,
  log: '/tmp/calls-bench-engine.log',
});
process.on('exit', () => (engine.kill(), llm.kill()));

/** CALLS G.711 sessions on /ws, each open once its session is set (voice, μ-law in and out, VAD). */
function openGatewaySessions() {
  return Promise.all(
    Array.from({ length: CALLS }, () => new Promise((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${PORT}/ws`);
      ws.on('message', (data) => {
        const event = JSON.parse(String(data));
        if (event.type === 'session')
          ws.send(JSON.stringify({ type: 'session.update', modality: 'voice', input_audio_format: 'g711_ulaw', output_audio_format: 'g711_ulaw', vad_silence_ms: 700 }));
        if (event.type === 'session.updated') resolve(ws);
      });
      ws.once('error', reject);
    })),
  );
}

const twilioFrame = (i) => JSON.stringify({ event: 'media', streamSid: `MZidle${i}`, media: { track: 'inbound', payload: FRAME.toString('base64') } });

/** The engine's CPU (ms) while `sockets` each send a frame every 20 ms for DURATION_SECS. */
async function streamed(sockets, frameOf) {
  const frames = sockets.map((_, i) => frameOf(i));
  const before = cpuMs(engine.pid);
  const started = performance.now();
  await new Promise((resolve) => {
    let sent = 0;
    const timer = setInterval(() => {
      sockets.forEach((ws, i) => ws.send(frames[i]));
      if (++sent === DURATION_SECS * 50) (clearInterval(timer), resolve());
    }, 20);
  });
  const after = cpuMs(engine.pid);
  const seconds = (performance.now() - started) / 1000;
  return (after.user + after.sys - before.user - before.sys) / seconds;
}

const ways = {
  twilio: { open: () => openCalls(PORT, CALLS), frameOf: twilioFrame },
  ws: { open: openGatewaySessions, frameOf: () => FRAME },
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const percent = (msPerSecond) => `${(msPerSecond / 10 / CALLS).toFixed(3)}% of a core a call`;
const results = { twilio: [], ws: [] };
console.log(`${CALLS} calls at once, each streaming 20 ms μ-law frames of a quiet line for ${DURATION_SECS} s; ${ROUNDS} rounds`);
for (let round = 0; round < ROUNDS; round++) {
  for (const way of round % 2 ? ['ws', 'twilio'] : ['twilio', 'ws']) {
    const sockets = await ways[way].open();
    const msPerSecond = await streamed(sockets, ways[way].frameOf);
    results[way].push(msPerSecond);
    await closeAll(sockets);
    await sessionsOpen(PORT, (open) => open === 0);
    console.log(`round ${round + 1} ${way.padEnd(6)}: ${percent(msPerSecond)} (${msPerSecond.toFixed(0)} ms of CPU a second for all)`);
  }
}
const [twilio, ws] = [median(results.twilio), median(results.ws)];
console.log(`medians: /twilio ${percent(twilio)}, /ws ${percent(ws)}; ratio /twilio to /ws ${(twilio / ws).toFixed(2)}x`);
await stopTarget(engine);
llm.kill();
world.close();
