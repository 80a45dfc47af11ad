import type { ClosingSocket } from './close-codes.js';
import { endReason } from './close-codes.js';

describe('endReason', () => {
  const socket = (closedWith?: number) => ({ closedWith }) as ClosingSocket;

  it('names the engine’s own closes by their code, whatever the client echoed', () => {
    expect(endReason(socket(4005), 4005)).toBe('transferred');
    expect(endReason(socket(4004), 1006)).toBe('agent');
    expect(endReason(socket(4003), 4003)).toBe('user_idle');
    expect(endReason(socket(4002), 4002)).toBe('admin');
    expect(endReason(socket(4001), 4001)).toBe('resumed_elsewhere');
    expect(endReason(socket(1001), 1001)).toBe('server_shutdown');
  });

  it("tells the client's close from a dropped connection", () => {
    expect(endReason(socket(), 1000)).toBe('client');
    expect(endReason(socket(), 4004)).toBe('client'); // a client's own code is no engine reason
    expect(endReason(socket(), 1006)).toBe('dropped');
  });
});
