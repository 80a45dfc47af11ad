// The first turn's wait for the answer's first text when the model looks the caller up itself
// (its first round a call of lookup_caller, its second the answer) against the same tool marked
// `at_start` (the engine calls it before the model's first request: one round), in one run.
//
// The fake LLM takes PREFILL_MS before its first token (the server reading the prompt), then
// streams a token (4 characters) every TOKEN_MS ms: the call as Qwen3-Coder XML, or the answer.
// The CRM answers after TOOL_MS. Each engine serves TURNS conversations, one after another, each
// on a fresh connection (its first turn); the figure is the time from user_text to the first
// assistant_delta, median over them.
//
// Run: npm run bench:at-start. Settings (environment): PREFILL_MS (300), TOKEN_MS (20), TOOL_MS
// (150), TURNS (5).
import { createServer } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { medianTurn, streamAnswer } from './harness.mjs';

const PREFILL_MS = Number(process.env.PREFILL_MS ?? 300);
const TOKEN_MS = Number(process.env.TOKEN_MS ?? 20);
const TOOL_MS = Number(process.env.TOOL_MS ?? 150);
const TURNS = Number(process.env.TURNS ?? 5);

const listen = (server) =>
  new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));

const CALL = '<tool_call>\n<function=lookup_caller>\n</function>\n</tool_call>';
const ANSWER = 'Hello Ada, your table for four is booked for eight tonight.';

const llm = createServer((req, res) => {
  if (req.url.endsWith('/models')) return res.end('{"data":[{"id":"fake"}]}');
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    const known = JSON.parse(body).messages.some((m) => m.role === 'tool');
    streamAnswer(res, known ? ANSWER : CALL, { tokenMs: TOKEN_MS, delayMs: PREFILL_MS });
  });
});
const crm = createServer((req, res) =>
  setTimeout(() => res.end('{"name":"Ada","booking":"table for four at 20:00"}'), TOOL_MS),
);
const llmUrl = `http://127.0.0.1:${await listen(llm)}/v1`;
const crmUrl = `http://127.0.0.1:${await listen(crm)}`;

/** A tools file with the CRM lookup, `at_start` or not. */
function toolsFile(atStart) {
  const path = join(mkdtempSync(join(tmpdir(), 'bench-tools-')), 'tools.json');
  const lookup = {
    name: 'lookup_caller',
    description: "The caller's record: name and bookings. Call it first.",
    url: `${crmUrl}/customers?phone=\${session.user_number}`,
    method: 'GET',
    ...(atStart && { at_start: true }),
  };
  writeFileSync(path, JSON.stringify([lookup]));
  return path;
}

/** A conversation's first turn: ms from user_text to the first assistant_delta. */
function firstTurn(port) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`);
    let start = 0;
    ws.once('message', () => {
      ws.send(JSON.stringify({ type: 'session.update', variables: { user_number: '+15550100' } }));
      ws.on('message', (data) => {
        const m = JSON.parse(data.toString());
        if (m.type === 'session.updated') {
          start = performance.now();
          ws.send(JSON.stringify({ type: 'user_text', text: 'Hi, is my booking still on?' }));
        } else if (m.type === 'assistant_delta' && start > 0) {
          resolve(performance.now() - start);
          start = 0;
        } else if (m.type === 'assistant_end') {
          if (m.text !== ANSWER) reject(new Error(`unexpected answer ${m.text}`));
          ws.close();
        }
      });
    });
    ws.once('error', reject);
  });
}

const measure = (atStart, port) =>
  medianTurn({
    port,
    llmUrl,
    env: { LLM_TOOLS_FILE: toolsFile(atStart) },
    log: `/tmp/at-start-bench-${atStart}.log`,
    turns: TURNS,
    // A warm-up conversation first: connections made, code paths compiled.
    warmup: 1,
    turn: firstTurn,
  });

const port = 23000 + Math.floor(Math.random() * 1000);
console.log(
  `the model's prefill ${PREFILL_MS} ms, a token of 4 characters every ${TOKEN_MS} ms, the CRM ${TOOL_MS} ms; first text of a conversation's first turn, median of ${TURNS}`,
);
const asked = await measure(false, port);
const atStart = await measure(true, port + 1);
console.log(`the model looks the caller up itself (two rounds): ${asked.toFixed(0)} ms to the first text`);
console.log(`the tool marked at_start (one round): ${atStart.toFixed(0)} ms to the first text`);
console.log(
  `ratio at_start / asked: ${(atStart / asked).toFixed(2)}x (${(asked - atStart).toFixed(0)} ms less for the caller to wait)`,
);
llm.close();
crm.close();
