// The fake LLM of bench/relay.bench.mjs, in its own process: every request gets DELTAS content
// deltas (WARMUP_DELTAS when its body asks to "warm up"), one per INTERVAL_MS, each carrying the
// wall-clock time it was written (t=<ms>;). With TOOL_CALLS=1, a request that offers tools and
// ends with the user's message is answered with a call of TOOL_NAME (default `echo`; a new word each time) in Qwen3-Coder
// markup, in pieces, as a model writes it in its text.
import { createServer } from 'node:http';

const DELTAS = Number(process.env.DELTAS ?? 200);
const WARMUP_DELTAS = Number(process.env.WARMUP_DELTAS ?? 20);
const INTERVAL_MS = Number(process.env.INTERVAL_MS ?? 20);
const TOOL_CALLS = process.env.TOOL_CALLS === '1';
const TOOL_NAME = process.env.TOOL_NAME ?? 'echo';
const now = () => performance.timeOrigin + performance.now();
let calls = 0;
const contentEvent = (content) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
const callPieces = () => [`<tool_call>\n<function=${TOOL_NAME}>\n`, '<parameter=word>\n', `w${calls++}\n</parameter>\n`, '</function>\n</tool_call>'];

const asksForCall = (body) => {
  const { tools, messages } = JSON.parse(body);
  return tools?.length > 0 && messages?.at(-1)?.role === 'user';
};

const server = createServer((req, res) => {
  if (req.url.endsWith('/models')) return res.end('{"data":[{"id":"fake"}]}');
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    const call = TOOL_CALLS && asksForCall(body) ? callPieces() : undefined;
    const deltas = call ? call.length : body.includes('warm up') ? WARMUP_DELTAS : DELTAS;
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    let i = 0;
    const timer = setInterval(() => {
      if (call && i < deltas) return res.write(contentEvent(call[i++]));
      if (i === deltas) {
        clearInterval(timer);
        res.write('data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n');
        return res.end();
      }
      res.write(`data: {"choices":[{"index":0,"delta":{"content":"t=${now().toFixed(3)}; "},"finish_reason":null}]}\n\n`);
      i++;
    }, INTERVAL_MS);
    res.on('close', () => clearInterval(timer));
  });
});
server.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${server.address().port}/v1`));
