// The fake LLM of bench/relay.bench.mjs, in its own process: every request gets DELTAS content
// deltas (WARMUP_DELTAS when its body asks to "warm up"), one per INTERVAL_MS, each carrying the
// wall-clock time it was written (t=<ms>;).
import { createServer } from 'node:http';

const DELTAS = Number(process.env.DELTAS ?? 200);
const WARMUP_DELTAS = Number(process.env.WARMUP_DELTAS ?? 20);
const INTERVAL_MS = Number(process.env.INTERVAL_MS ?? 20);
const now = () => performance.timeOrigin + performance.now();

const server = createServer((req, res) => {
  if (req.url.endsWith('/models')) return res.end('{"data":[{"id":"fake"}]}');
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    const deltas = body.includes('warm up') ? WARMUP_DELTAS : DELTAS;
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    let i = 0;
    const timer = setInterval(() => {
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
