// Time to the answer's first text with a first LLM server whose queue is sometimes long, without
// and with LLM_FALLBACK_AFTER_MS (the fallback asked as well once the first is that slow to
// begin), measured in one run.
//
// The first fake server begins each answer after a delay taken in turn from a pattern of 20 (most
// quick, a few slow, one very slow: a vLLM whose queue fills now and then); the fallback always
// begins after FALLBACK_MS. Each engine serves TURNS turns one after another, the same delays in
// the same order; the figure is the time from user_text to the first assistant_delta, as the
// client sees it, with its percentiles, and how many requests went to both servers.
//
// Run: npm run bench:fallback-after. Settings (environment): AFTER_MS (500), FALLBACK_MS (200),
// TURNS (40).
import { createServer } from 'node:http';
import WebSocket from 'ws';
import { percentile, startTarget, stopTarget } from './harness.mjs';

const AFTER_MS = Number(process.env.AFTER_MS ?? 500);
const FALLBACK_MS = Number(process.env.FALLBACK_MS ?? 200);
const TURNS = Number(process.env.TURNS ?? 40);
/** The first server's delays before each answer begins: 16 quick, 3 slow, 1 very slow. */
const PATTERN = [...Array(16).fill(100), 800, 800, 800, 3000];
// Spread so that the slow ones do not come together.
const DELAYS = PATTERN.map((_, i) => PATTERN[(i * 7) % PATTERN.length]);

const listen = (server) =>
  new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
const chunk = (content, finish = null) =>
  `data: ${JSON.stringify({ choices: [{ index: 0, delta: content === undefined ? {} : { content }, finish_reason: finish }] })}\n\n`;

/** A fake LLM server answering "Hello there." after `delayOf(i)` ms for its i-th request. */
function fakeServer(delayOf) {
  const server = createServer((req, res) => {
    if (req.url.endsWith('/models')) return res.end('{"data":[{"id":"fake"}]}');
    req.resume();
    req.on('end', () => {
      const delay = delayOf(server.asked++);
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      const timer = setTimeout(() => {
        res.write(chunk('Hello '));
        res.end(`${chunk('there.')}${chunk(undefined, 'stop')}data: [DONE]\n\n`);
      }, delay);
      res.on('close', () => {
        if (!res.writableEnded) server.cancelled++;
        clearTimeout(timer);
      });
    });
  });
  server.asked = 0;
  server.cancelled = 0;
  return server;
}

const first = fakeServer((i) => DELAYS[i % DELAYS.length]);
const fallback = fakeServer(() => FALLBACK_MS);
const firstUrl = `http://127.0.0.1:${await listen(first)}/v1`;
const fallbackUrl = `http://127.0.0.1:${await listen(fallback)}/v1`;

/** One turn: ms from user_text to the first assistant_delta. */
function turn(ws) {
  return new Promise((resolve) => {
    const start = performance.now();
    let firstText;
    const onMessage = (data) => {
      const m = JSON.parse(data.toString());
      if (m.type === 'assistant_delta') firstText ??= performance.now() - start;
      if (m.type !== 'assistant_end') return;
      ws.off('message', onMessage);
      resolve(firstText);
    };
    ws.on('message', onMessage);
    ws.send(JSON.stringify({ type: 'user_text', text: 'hi' }));
  });
}

async function measure(afterMs, port) {
  first.asked = first.cancelled = fallback.asked = fallback.cancelled = 0;
  const child = await startTarget({
    script: 'dist/main.js',
    port,
    llmUrl: firstUrl,
    env: {
      LLM_FALLBACK_BASE_URL: fallbackUrl,
      LLM_FALLBACK_MODEL: 'fake',
      LLM_FALLBACK_AFTER_MS: String(afterMs),
      WS_MAX_TURNS_PER_MINUTE: '0',
    },
    log: `/tmp/fallback-after-bench-${afterMs}.log`,
  });
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`);
  await new Promise((resolve) => ws.once('message', resolve));
  const times = [];
  for (let i = 0; i < TURNS; i++) times.push(await turn(ws));
  ws.close();
  await stopTarget(child);
  times.sort((a, b) => a - b);
  return {
    p50: percentile(times, 50),
    p90: percentile(times, 90),
    p99: percentile(times, 99),
    both: fallback.asked,
    cancelled: first.cancelled + fallback.cancelled,
  };
}

const port = 23000 + Math.floor(Math.random() * 1000);
console.log(
  `first server begins after ${PATTERN.filter((d) => d === 100).length} x 100 ms, 3 x 800 ms, 1 x 3000 ms in each 20 requests; the fallback after ${FALLBACK_MS} ms; ${TURNS} turns; time from user_text to the first text`,
);
const show = (label, r) =>
  console.log(
    `${label}: p50 ${r.p50.toFixed(0)} ms  p90 ${r.p90.toFixed(0)} ms  p99 ${r.p99.toFixed(0)} ms  (${r.both} of ${TURNS} requests sent to both servers, ${r.cancelled} cancelled)`,
  );
const without = await measure(0, port);
show('without LLM_FALLBACK_AFTER_MS', without);
const hedged = await measure(AFTER_MS, port + 1);
show(`LLM_FALLBACK_AFTER_MS=${AFTER_MS}`, hedged);
console.log(
  `ratio with / without: p50 ${(hedged.p50 / without.p50).toFixed(2)}x  p90 ${(hedged.p90 / without.p90).toFixed(2)}x  p99 ${(hedged.p99 / without.p99).toFixed(2)}x`,
);
first.close();
fallback.close();
