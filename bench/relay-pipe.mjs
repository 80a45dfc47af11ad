// The baseline for bench/relay.bench.mjs: a bare SSE→WebSocket pipe with no parsing.
// Each client text frame starts one streamed request; every SSE data payload is forwarded as is.
import { WebSocketServer } from 'ws';

const port = Number(process.env.PORT);
const upstream = process.env.LLM_BASE_URL;
const wss = new WebSocketServer({ port, path: '/ws' });
wss.on('connection', (socket) => {
  socket.send('{"type":"session"}');
  socket.on('message', async () => {
    const res = await fetch(`${upstream}/chat/completions`, { method: 'POST', body: '{"stream":true}', headers: { 'Content-Type': 'application/json' } });
    const decoder = new TextDecoder();
    for await (const chunk of res.body) socket.send(decoder.decode(chunk, { stream: true }));
    socket.send('{"type":"assistant_end"}');
  });
});
console.log('relay ready');
