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
    const pacer = new Pacer(0); // one message a turn of the loop, however fast the machine
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

describe('ReadLimit counts', () => {
  it('pauses at `high` waiting, resumes once at `low`, and counts a failed message as handled', async () => {
    const calls: string[] = [];
    const socket = {
      isPaused: false,
      pause: () => (calls.push('pause'), (socket.isPaused = true)),
      resume: () => (calls.push('resume'), (socket.isPaused = false)),
    };
    const limit = new ReadLimit(socket, () => calls.push('onPause'), 4, 1);
    const settles: ((fail: boolean) => void)[] = [];
    for (let i = 0; i < 4; i++)
      limit.track(
        new Promise<void>((resolve, reject) =>
          settles.push((fail) => (fail ? reject(new Error('x')) : resolve())),
        ),
      );
    expect(calls).toEqual(['pause', 'onPause']);
    settles[0]!(true); // a message whose handling failed
    settles[1]!(false);
    await new Promise((r) => setImmediate(r));
    expect(calls).toEqual(['pause', 'onPause']);
    settles[2]!(true);
    await new Promise((r) => setImmediate(r));
    expect(calls).toEqual(['pause', 'onPause', 'resume']);
    settles[3]!(false);
    await new Promise((r) => setImmediate(r));
    expect(calls).toEqual(['pause', 'onPause', 'resume']);
    // Down to `low` again without having reached `high`: not paused, nothing to resume.
    let settle!: () => void;
    limit.track(new Promise<void>((resolve) => (settle = resolve)));
    limit.track(new Promise<void>(() => {}));
    settle();
    await new Promise((r) => setImmediate(r));
    expect(calls).toEqual(['pause', 'onPause', 'resume']);
  });
});
