// The baseline for bench/relay.bench.mjs: a bare SSE→WebSocket pipe with no parsing, on the same
// HTTP client as the engine (node:http). Each client text frame starts one streamed request;
// every chunk of the SSE body is forwarded as it is.
import { request } from 'node:http';
import { WebSocketServer } from 'ws';

const port = Number(process.env.PORT);
const upstream = new URL(`${process.env.LLM_BASE_URL}/chat/completions`);
const wss = new WebSocketServer({ port, path: '/ws' });
wss.on('connection', (socket) => {
  socket.send('{"type":"session"}');
  socket.on('message', () => {
    const req = request(upstream, { method: 'POST', headers: { 'Content-Type': 'application/json' } }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (chunk) => socket.send(chunk));
      res.on('end', () => socket.send('{"type":"assistant_end"}'));
    });
    req.end('{"stream":true}');
  });
});
console.log('relay ready');
process.on('SIGINT', () => process.exit(0));
