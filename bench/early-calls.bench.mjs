// Turn time with calls started as soon as the model has written them (LLM_TOOL_EARLY_START=true)
// against calls started when the model's message ends (false), measured in one run.
//
// The fake LLM writes a message of CALLS Qwen3-Coder XML calls to a GET tool, a token (4
// characters) every TOKEN_MS ms, as a model streams at 1000/TOKEN_MS tokens a second; once it
// has the results it answers "Done.". The tool answers the first call after SLOW_MS (a search, a
// database) and the others after FAST_MS. Each engine serves TURNS turns one after another; the
// figure is the time from user_text to assistant_end, median over the turns.
//
// Run: npm run bench:early-calls. Settings (environment): CALLS (3), TOKEN_MS (20), SLOW_MS
// (1000), FAST_MS (100), TURNS (5).
import { createServer } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { medianTurn, streamAnswer } from './harness.mjs';

const CALLS = Number(process.env.CALLS ?? 3);
const TOKEN_MS = Number(process.env.TOKEN_MS ?? 20);
const SLOW_MS = Number(process.env.SLOW_MS ?? 1000);
const FAST_MS = Number(process.env.FAST_MS ?? 100);
const TURNS = Number(process.env.TURNS ?? 5);

const listen = (server) =>
  new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));

const call = (i) =>
  `<tool_call>\n<function=lookup>\n<parameter=query>\nitem number ${i} of the order\n</parameter>\n</function>\n</tool_call>\n`;
const message = `Let me look these up.\n${Array.from({ length: CALLS }, (_, i) => call(i)).join('')}`;

const llm = createServer((req, res) => {
  if (req.url.endsWith('/models')) return res.end('{"data":[{"id":"fake"}]}');
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    const answered = JSON.parse(body).messages.some((m) => m.role === 'tool');
    streamAnswer(res, answered ? 'Done.' : message, { tokenMs: TOKEN_MS });
  });
});
const tool = createServer((req, res) => {
  const slow = /item(%20|\+)number(%20|\+)0/.test(req.url);
  setTimeout(() => res.end('in stock'), slow ? SLOW_MS : FAST_MS);
});
const llmUrl = `http://127.0.0.1:${await listen(llm)}/v1`;
const toolUrl = `http://127.0.0.1:${await listen(tool)}`;
const toolsFile = join(mkdtempSync(join(tmpdir(), 'bench-tools-')), 'tools.json');
writeFileSync(
  toolsFile,
  JSON.stringify([
    {
      name: 'lookup',
      description: 'Looks an item up',
      parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
      url: `${toolUrl}/lookup`,
      method: 'GET',
    },
  ]),
);

/** One turn on a fresh connection: ms from user_text to assistant_end. */
function turn(port) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`);
    let start = 0;
    ws.once('message', () => {
      start = performance.now();
      ws.send(JSON.stringify({ type: 'user_text', text: 'check my order' }));
      ws.on('message', (data) => {
        const m = JSON.parse(data.toString());
        if (m.type !== 'assistant_end') return;
        if (m.text !== 'Let me look these up.\nDone.') reject(new Error(`unexpected answer ${m.text}`));
        resolve(performance.now() - start);
        ws.close();
      });
    });
    ws.once('error', reject);
  });
}

const measure = (early, port) =>
  medianTurn({
    port,
    llmUrl,
    env: { LLM_TOOLS_FILE: toolsFile, LLM_TOOL_EARLY_START: String(early), LLM_TOOL_MAX_ITERATIONS: '2' },
    log: `/tmp/early-calls-bench-${early}.log`,
    turns: TURNS,
    turn,
  });

const port = 22000 + Math.floor(Math.random() * 1000);
const streamMs = Math.ceil(message.length / 4) * TOKEN_MS;
console.log(
  `${CALLS} GET calls in one message, streamed in ${streamMs} ms (a token of 4 characters every ${TOKEN_MS} ms); the first call's tool answers after ${SLOW_MS} ms, the others after ${FAST_MS} ms; median of ${TURNS} turns`,
);
const late = await measure(false, port);
const early = await measure(true, port + 1);
console.log(`calls started when the message ends (LLM_TOOL_EARLY_START=false): ${late.toFixed(0)} ms per turn`);
console.log(`calls started as soon as each is written (LLM_TOOL_EARLY_START=true): ${early.toFixed(0)} ms per turn`);
console.log(`ratio early / late: ${(early / late).toFixed(2)}x (${(late - early).toFixed(0)} ms less for the caller to wait)`);
llm.close();
tool.close();
