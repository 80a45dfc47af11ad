// The baselines for bench/relay.bench.mjs, on the same HTTP client as the engine (node:http).
// Each client user_text frame starts one streamed request with its text.
//   RELAY=pipe (default): a bare SSE→WebSocket pipe; every chunk of the SSE body is forwarded as it is.
//   RELAY=json: the least any engine that reads the stream must do: the SSE is parsed
//   (eventsource-parser), each chunk goes through JSON.parse, and each content delta goes out as one
//   assistant_delta JSON frame. No tool-call parsing, no turn loop.
//   BUSY_US=N (with RELAY=json): N µs more work for each delta, a busy loop before its frame is
//   sent: how the ratios to the pipe answer to a cost per delta above the least (bench/HISTORY.md,
//   thirty-second day).
import { request } from 'node:http';
import { createParser } from 'eventsource-parser';
import { WebSocketServer } from 'ws';

const port = Number(process.env.PORT);
const upstream = new URL(`${process.env.LLM_BASE_URL}/chat/completions`);
const json = process.env.RELAY === 'json';
const BUSY_US = Number(process.env.BUSY_US ?? 0);

/** What to do with each chunk of the SSE body, for one client socket. */
function forwarder(socket) {
  if (!json) return (chunk) => socket.send(chunk);
  const parser = createParser({
    onEvent: ({ data }) => {
      if (data === '[DONE]') return;
      const text = JSON.parse(data).choices?.[0]?.delta?.content;
      if (BUSY_US > 0) {
        const end = performance.now() + BUSY_US / 1000;
        while (performance.now() < end);
      }
      if (text) socket.send(JSON.stringify({ type: 'assistant_delta', text }));
    },
  });
  return (chunk) => parser.feed(chunk);
}

const wss = new WebSocketServer({ port, path: '/ws' });
wss.on('connection', (socket) => {
  socket.send('{"type":"session"}');
  socket.on('message', (data) => {
    const { text } = JSON.parse(data.toString());
    const forward = forwarder(socket);
    const req = request(upstream, { method: 'POST', headers: { 'Content-Type': 'application/json' } }, (res) => {
      res.setEncoding('utf8');
      res.on('data', forward);
      res.on('end', () => socket.send('{"type":"assistant_end"}'));
    });
    req.end(JSON.stringify({ stream: true, messages: [{ role: 'user', content: text }] }));
  });
});
console.log('relay ready');
process.on('SIGINT', () => process.exit(0));
