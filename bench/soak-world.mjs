// What the sessions of bench/soak.bench.mjs meet: the HTTP tool's server, a speech-to-text server,
// and the tools of each of its modes (an HTTP tool, a code tool, an MCP tool, a session's client
// tool, whole tool sets to install).
import g711 from 'alawmulaw';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';

/** 20 ms of 16 kHz PCM: a quiet hiss, the same every time (the speech server hears it as words). */
export const FRAME = Buffer.alloc(640);
for (let i = 0; i < 320; i++) FRAME.writeInt16LE(((i * 7919) % 200) - 100, i * 2);

/** The test suite's spoken sentence (16 kHz PCM) as a phone line carries it: 8 kHz μ-law. */
const SENTENCE = (() => {
  const pcm = readFileSync('test/fixtures/audio/speech-16k.pcm');
  const wide = new Int16Array(pcm.buffer, pcm.byteOffset, pcm.length >> 1);
  const narrow = Int16Array.from({ length: wide.length >> 1 }, (_, i) => (wide[2 * i] + wide[2 * i + 1]) >> 1);
  return Buffer.concat([Buffer.from(g711.mulaw.encode(narrow)), Buffer.alloc(8000, 0xff)]); // then 1 s of silence
})();
let calls = 0;

/** What Twilio sends first on a call's stream: `connected`, then `start` with its ids. */
function startCall(ws, streamSid, callSid) {
  ws.send(JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' }));
  ws.send(JSON.stringify({ event: 'start', streamSid, start: { streamSid, callSid, tracks: ['inbound'], mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 }, customParameters: {} } }));
}

/**
 * A phone call on the engine's `/twilio` (`url`) as Twilio streams it: `turns` times the caller
 * says the sentence (in 20 ms media frames), the first time at once, then each time the agent's
 * answer to the last has begun to play — over it: the answer is long, so the agent is still
 * speaking and clears what it sent (`clear`), after which its media are the next answer's. Hangs
 * up (`stop`) once the last answer plays. Counts the media frames and clears in `got`; resolves
 * once closed.
 */
export function phoneCall(url, turns, got) {
  const streamSid = `MZ${++calls}`;
  const ws = new WebSocket(url);
  const send = (frame) => ws.send(JSON.stringify({ ...frame, streamSid }));
  let spoken = 0;
  /** Whether the media that come are the answer to what the caller said last. */
  let answering = true;
  const speak = () => {
    spoken++;
    for (let at = 0; at < SENTENCE.length; at += 160)
      send({ event: 'media', media: { track: 'inbound', payload: SENTENCE.subarray(at, at + 160).toString('base64') } });
  };
  const callSid = `CA${calls}`;
  ws.on('open', () => (startCall(ws, streamSid, callSid), speak()));
  let heard = 0;
  ws.on('message', (data) => {
    const frame = JSON.parse(String(data));
    if (frame.event === 'clear') return void (got.clears++, (answering = true));
    if (frame.event !== 'media' || !answering) return;
    got.audio++;
    if (++heard > 1) return; // the answer's first frame only
    if (spoken === turns) return send({ event: 'stop', stop: {} });
    (answering = false), (heard = 0);
    speak();
  });
  return new Promise((resolve, reject) => ws.once('close', resolve).once('error', reject));
}

/**
 * `count` phone calls opened at once on the engine at `port` (Twilio's `connected` and `start`),
 * resolved once the engine has a session open for each (its `agent_engine_ws_sessions` gauge
 * counts them), nothing said on any: what an idle call holds.
 */
export async function openCalls(port, count) {
  const calls = await Promise.all(
    Array.from({ length: count }, (_, i) => new Promise((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/twilio`);
      ws.once('open', () => (startCall(ws, `MZidle${i}`, `CAidle${i}`), resolve(ws)));
      ws.once('error', reject);
    })),
  );
  await sessionsOpen(port, (open) => open >= count);
  return calls;
}

/** Resolves once the number of sessions open on the engine at `port` passes `test`. */
export async function sessionsOpen(port, test) {
  for (;;) {
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    if (test(Number(/^agent_engine_ws_sessions (\d+)/m.exec(metrics)?.[1]))) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Session `n`'s own client tool `pick`: a schema no other session has (checked against its own validator). */
export const clientTool = (n) => ({
  name: 'pick',
  description: `Shows the word to the user of session ${n}.`,
  parameters: { type: 'object', properties: { word: { type: 'string', maxLength: 1000 + n }, [`note_${n}`]: { type: 'string' } }, required: ['word'] },
});

/** An MCP tool: the test suite's stdio server (run by the engine) echoes the word. */
const spell = {
  type: 'mcp',
  name: 'spell',
  tool: 'echo',
  command: process.execPath,
  args: [join(process.cwd(), 'test/support/mcp-stdio-server.mjs')],
};

/** A code tool: the session's words in its state, each echoed through the HTTP tool. */
const remember = {
  type: 'python',
  code: [
    'def remember(word: str) -> str:',
    '    """Remembers a word for the rest of the conversation."""',
    '    words = context.state.get("words", []) + [word]',
    '    context.state["words"] = words',
    '    echoed = tools.echo({"word": word})',
    '    return f"{len(words)} words, the last echoed as {echoed}"',
  ].join('\n'),
};

const listening = async (server) => (await new Promise((r) => server.listen(0, '127.0.0.1', r)), server.address().port);

/**
 * Starts the servers and writes the tools file: `echo` (its header carrying a session variable
 * with `sessionSettings`), and `remember` and `spell` with `codeTools` and `mcp`.
 */
export async function soakWorld({ codeTools, mcp, sessionSettings }) {
  const counts = { toolRequests: 0, transcriptions: 0 };
  // The tool's server: echoes the word at the end of the path.
  const tools = createServer((req, res) => {
    counts.toolRequests++;
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ echo: decodeURIComponent(req.url.split('/').pop()) }));
  });
  // The speech-to-text server: each utterance is "turn N" (OpenAI's transcriptions API).
  const stt = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ text: `turn ${++counts.transcriptions}` }));
    });
  });
  const base = `http://127.0.0.1:${await listening(tools)}`;
  const sttUrl = `http://127.0.0.1:${await listening(stt)}/v1`;
  const dir = mkdtempSync(join(tmpdir(), 'soak-'));
  const toolsFile = join(dir, 'tools.json');
  const echo = {
    name: 'echo',
    description: 'Echoes a word.',
    parameters: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
    url: `${base}/echo/{word}`,
    method: 'GET',
    // Each session's own value in a header (a caller's token).
    ...(sessionSettings && { headers: { 'X-Customer': '${session.customer}' } }),
  };
  const withExtras = (set) => [...set, ...(codeTools ? [remember] : []), ...(mcp ? [spell] : [])];
  writeFileSync(toolsFile, JSON.stringify(withExtras([echo])));

  /** An OpenAPI document of one operation, new for each tool set (read from its file at install). */
  const openApiTool = (n) => {
    const spec = {
      openapi: '3.0.3',
      info: { title: `Records ${n}`, version: '1' },
      servers: [{ url: base }],
      paths: {
        [`/records/${n}/{id}`]: {
          get: {
            operationId: `getRecord${n}`,
            summary: `Reads a record of kind ${n}.`,
            parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
            responses: { 200: { description: 'The record' } },
          },
        },
      },
    };
    writeFileSync(join(dir, `spec-${n % 50}.json`), JSON.stringify(spec));
    return { type: 'openapi', spec: `spec-${n % 50}.json`, operation: `getRecord${n}` };
  };
  /** Tool set `n`: echo with limits of its own, and tools named and shaped as no set before. */
  const toolSet = (n) =>
    withExtras([
      { ...echo, rate_limit: { calls: 50000 + (n % 50000), per_secs: 1 }, max_concurrency: 10000 - (n % 100), retries: n % 3 },
      ...Array.from({ length: 4 }, (_, i) => ({
        name: `lookup_${n}_${i}`,
        description: `Looks up record kind ${n}.${i}.`,
        parameters: { type: 'object', $id: `urn:set:${n}:${i}`, properties: { [`id_${n}`]: { type: 'string', pattern: `^[a-z]{${i + 1}}\\d+$` }, days: { type: 'integer', minimum: i } }, required: [`id_${n}`] },
        url: `${base}/records/${n}/{id_${n}}`,
        method: 'GET',
        cache_secs: 60 + i,
      })),
      openApiTool(n),
    ]);

  return {
    counts,
    toolsFile,
    sttUrl,
    toolSet,
    /** The tool the fake LLM calls. */
    toolName: codeTools ? 'remember' : mcp ? 'spell' : 'echo',
    close: () => (tools.close(), stt.close()),
  };
}
