import type { Socket } from 'node:net';
import { Engine } from './support/engine.js';
import { WsClient } from './support/ws-client.js';

describe('WebSocket heartbeat', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await Engine.start({ WS_PING_INTERVAL_SECS: '1' });
  });
  afterAll(() => engine.stop());

  it('keeps a peer that answers pings, and drops one that does not', async () => {
    const alive = await WsClient.connect(engine.wsUrl);
    const dead = await WsClient.connect(engine.wsUrl);
    // A peer that stops reading never sees the pings, so it never answers them.
    (dead.socket as unknown as { _socket: Socket })._socket.pause();
    const droppedAt = Date.now();
    await new Promise((r) => setTimeout(r, 2600));
    (dead.socket as unknown as { _socket: Socket })._socket.resume();
    expect(
      await Promise.race([dead.closed, new Promise((r) => setTimeout(() => r('open'), 2000))]),
    ).not.toBe('open');
    expect(Date.now() - droppedAt).toBeLessThan(6000);
    expect(alive.socket.readyState).toBe(alive.socket.OPEN);
    alive.close();
  });
});
