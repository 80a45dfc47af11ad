import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import { Pacer } from '../common/pacer.js';
import { ReadLimit } from './read-limit.js';

describe('ReadLimit on a real WebSocket', () => {
  let server: WebSocketServer;
  let url: string;
  beforeAll(async () => {
    server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise((resolve) => server.once('listening', resolve));
    url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  /** Floods the server with `count` messages of 1 KB; the server handles one per loop turn. */
  async function flood(count: number, limited: boolean) {
    const pacer = new Pacer();
    const seen: number[] = [];
    let waiting = 0;
    let most = 0;
    let pauses = 0;
    server.once('connection', (socket) => {
      const limit = new ReadLimit(socket, () => pauses++);
      socket.on('message', (data) => {
        most = Math.max(most, ++waiting);
        const handled = pacer.next().then(() => {
          seen.push(Number(data.toString().slice(0, 8)));
          waiting--;
        });
        if (limited) limit.track(handled);
      });
    });
    const client = new WebSocket(url);
    await new Promise((resolve) => client.once('open', resolve));
    const pad = 'x'.repeat(1016);
    for (let i = 0; i < count; i++) client.send(`${String(i).padStart(8, '0')}${pad}`);
    while (seen.length < count) await new Promise((r) => setTimeout(r, 10));
    client.close();
    return { seen, most, pauses };
  }

  it('holds at most its limit and one read of messages waiting; none is lost, in order', async () => {
    const { seen, most, pauses } = await flood(3000, true);
    expect(seen).toEqual(Array.from({ length: 3000 }, (_, i) => i));
    expect(pauses).toBeGreaterThan(0);
    expect(most).toBeLessThan(400); // 64, and a read of the socket (64 KB: 64 messages) or a few
  });

  it('(without it, the engine would hold the whole flood)', async () => {
    const { most } = await flood(3000, false);
    expect(most).toBeGreaterThan(1000);
  });
});
