import { LocalSocket } from './local-socket.js';

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('LocalSocket (a connection within the process)', () => {
  it('opens the client a turn later, and delivers in order, later, with whether each was binary', async () => {
    const { client, server } = LocalSocket.pair();
    const events: string[] = [];
    client.on('open', () => events.push('open'));
    server.on('message', (data: Buffer, binary: boolean) =>
      events.push(`${binary ? 'binary' : 'text'}:${data.toString()}`),
    );
    expect(client.readyState).toBe(client.CONNECTING);
    expect(server.readyState).toBe(server.OPEN);
    client.send('{"type":"say"}');
    client.send(Buffer.from('pcm'));
    expect(events).toEqual([]); // never within the sender's own call
    await turn();
    await turn();
    expect(events).toEqual(['open', 'text:{"type":"say"}', 'binary:pcm']);
    expect(client.readyState).toBe(client.OPEN);
  });

  it('holds messages while paused and hands them over, in order, once resumed', async () => {
    const { client, server } = LocalSocket.pair();
    const got: string[] = [];
    server.on('message', (data: Buffer) => got.push(data.toString()));
    server.pause();
    for (const n of [1, 2, 3]) client.send(String(n));
    await turn();
    expect(got).toEqual([]);
    server.resume();
    await turn();
    expect(got).toEqual(['1', '2', '3']);
  });

  it('closes both ends with the code and reason; nothing is sent once closing', async () => {
    const { client, server } = LocalSocket.pair();
    const closes: [string, number, string][] = [];
    client.on('close', (code: number, reason: Buffer) =>
      closes.push(['client', code, reason.toString()]),
    );
    server.on('close', (code: number, reason: Buffer) =>
      closes.push(['server', code, reason.toString()]),
    );
    const got: string[] = [];
    client.on('message', (data: Buffer) => got.push(data.toString()));
    server.send('last words');
    server.close(4002, 'closed by an administrator');
    server.send('too late');
    expect(client.readyState).toBe(client.CLOSING);
    await turn();
    await turn();
    expect(got).toEqual(['last words']);
    expect(closes).toEqual([
      ['server', 4002, 'closed by an administrator'],
      ['client', 4002, 'closed by an administrator'],
    ]);
    expect([client.readyState, server.readyState]).toEqual([client.CLOSED, server.CLOSED]);
    // A connection cut (terminate) closes as lost: 1006.
    const other = LocalSocket.pair();
    const code = new Promise((resolve) => other.client.once('close', resolve));
    other.server.terminate();
    expect(await code).toBe(1006);
  });
});
