import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { boundedText } from './response-body.js';

describe('boundedText (a real HTTP server on loopback)', () => {
  let server: Server;
  let url = '';
  let closed = 0;
  beforeAll(async () => {
    server = createServer((req, res) => {
      res.on('close', () => (closed += 1));
      if (req.url === '/small') return void res.end('héllo');
      // Begun, and never ended.
      if (req.url === '/stall')
        return void res.writeHead(200, { 'Content-Length': '100' }).write('abc');
      // Without end, as fast as it is read.
      const chunk = Buffer.alloc(16 * 1024, 'z');
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
      };
      res.on('drain', pump);
      pump();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });

  it('gives a body within the limit whole', async () => {
    expect(await boundedText(await fetch(`${url}/small`), 6)).toEqual({
      text: 'héllo',
      more: false,
    });
  });

  it('gives the first bytes of an endless body, says there was more, and lets it go', async () => {
    const before = closed;
    const read = await boundedText(await fetch(`${url}/flood`), 100_000);
    expect(read).toEqual({ text: 'z'.repeat(100_000), more: true });
    // The server sees the connection go: nothing more is read from it.
    for (let i = 0; i < 100 && closed === before; i++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(closed).toBe(before + 1);
  });

  it("ends the read of a body that stalls with its signal's reason (the request's timeout)", async () => {
    const response = await fetch(`${url}/stall`);
    const started = Date.now();
    await expect(boundedText(response, 1000, AbortSignal.timeout(200))).rejects.toMatchObject({
      name: 'TimeoutError',
    });
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
