// Speech benchmark, one run, figures as ratios where they compare:
//  1. real-time factor of eSpeak NG (synthesis time / audio duration);
//  2. time to first audio: first LLM delta written → first `audio` event received, against the
//     time to synthesise the first sentence alone (goal: ≤ that + 5 ms);
//  3. sessions speaking at once before the event loop lags more than 20 ms (p99).
// Run: npm run bench:speech   (builds dist/ first)
import { createServer } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import WebSocket from 'ws';
import { EspeakTtsEngine } from '../dist/speech/espeak-tts.engine.js';

const FIRST = 'The weather in Paris is sunny today.';
const REST = ['It is twenty one degrees. ', 'There is a light wind from the west. ', 'Enjoy your afternoon.'];

async function synthSeconds(engine, text) {
  const start = performance.now();
  let bytes = 0;
  for await (const chunk of engine.synthesize({ text, voice: '', language: 'en', signal: new AbortController().signal })) bytes += chunk.length;
  return { ms: performance.now() - start, audioSec: bytes / 2 / engine.sampleRate };
}

const local = new EspeakTtsEngine();
await synthSeconds(local, 'Warm up.');
let synthMs = 0;
let audioSec = 0;
for (const text of [FIRST, ...REST]) {
  const r = await synthSeconds(local, text);
  synthMs += r.ms;
  audioSec += r.audioSec;
}
await local.onModuleDestroy();
console.log(`eSpeak NG real-time factor: ${(synthMs / 1000 / audioSec).toFixed(3)} (${synthMs.toFixed(0)} ms for ${audioSec.toFixed(1)} s of audio)`);

// Fake LLM: first delta is the whole first sentence, then the rest 20 ms apart; it records when it wrote.
const writes = [];
const llm = createServer((req, res) => {
  if (req.url.endsWith('/models')) return res.end('{"data":[{"id":"fake"}]}');
  req.resume();
  req.on('end', async () => {
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    const send = (content) => res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`);
    writes.push(performance.now());
    send(FIRST + ' ');
    for (const part of REST) {
      await new Promise((r) => setTimeout(r, 20));
      send(part);
    }
    res.end('data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n');
  });
});
await new Promise((r) => llm.listen(0, '127.0.0.1', r));
process.env.LLM_BASE_URL = `http://127.0.0.1:${llm.address().port}/v1`;
process.env.LLM_MODEL = 'fake';
process.env.LOG_LEVEL = 'warn';
process.env.TTS_PROVIDER = 'espeak';
// Every turn says the same sentences: kept speech (TTS_CACHE_MB) would measure the cache, not synthesis.
process.env.TTS_CACHE_MB = '0';
process.env.SPEECH_AUDIO_LEAD_MS = '600000';
const { createApp } = await import('../dist/bootstrap.js');
const app = await createApp();
await app.listen(0, '127.0.0.1');
const url = `ws://127.0.0.1:${app.getHttpServer().address().port}/ws`;

async function voiceTurn() {
  const ws = new WebSocket(url);
  await new Promise((r) => ws.once('message', r));
  ws.send(JSON.stringify({ type: 'session.update', modality: 'voice' }));
  await new Promise((r) => ws.once('message', r));
  const index = writes.length;
  let firstAudio = 0;
  await new Promise((resolve) => {
    ws.on('message', (data) => {
      const m = JSON.parse(data.toString());
      if (m.type === 'audio' && !firstAudio) firstAudio = performance.now();
      if (m.type === 'audio_end') resolve();
    });
    ws.send(JSON.stringify({ type: 'user_text', text: 'weather?' }));
  });
  ws.close();
  return firstAudio - writes[index];
}

// Same worker, interleaved: a voice turn, then the first sentence alone through the engine's own TTS.
const { TtsEngine } = await import('../dist/speech/tts-engine.js');
const appTts = app.get(TtsEngine);
// Time each synthesis the engine asks for, to separate the pipeline's own cost from synthesis.
const inTurn = [];
let measuring = false;
const original = appTts.synthesize.bind(appTts);
appTts.synthesize = async function* (request) {
  const started = performance.now();
  let first = true;
  for await (const chunk of original(request)) {
    if (first && request.text === FIRST && measuring) inTurn.push(performance.now() - started);
    first = false;
    yield chunk;
  }
};
await voiceTurn();
inTurn.length = 0;
const ttfa = [];
const alone = [];
for (let i = 0; i < 9; i++) {
  measuring = true;
  ttfa.push(await voiceTurn());
  measuring = false;
  alone.push((await synthSeconds(appTts, FIRST)).ms);
}
const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const own = ttfa.map((t, i) => t - inTurn[i]);
console.log(`time to first audio (median of 9): ${med(ttfa).toFixed(1)} ms; first sentence synthesised alone, same worker: ${med(alone).toFixed(1)} ms; difference ${(med(ttfa) - med(alone)).toFixed(1)} ms (goal <= 5 ms)`);
console.log(`pipeline's own share of time to first audio (TTFA minus that turn's synthesis): median ${med(own).toFixed(1)} ms`);

const lag = monitorEventLoopDelay({ resolution: 5 });
for (const n of [1, 10, 40, 80, 160]) {
  lag.reset();
  lag.enable();
  const firsts = await Promise.all(Array.from({ length: n }, () => voiceTurn()));
  lag.disable();
  const p99 = lag.percentile(99) / 1e6;
  console.log(
    `${String(n).padStart(3)} sessions speaking at once: event loop delay p99 ${p99.toFixed(1)} ms${p99 > 20 ? '  (over 20 ms)' : ''}; ` +
      `time to first audio p50 ${med(firsts).toFixed(0)} ms (TTS_ESPEAK_WORKERS=${process.env.TTS_ESPEAK_WORKERS ?? 1}; waiting sentences queue, first sentences first)`,
  );
}
await app.close();
llm.close();
