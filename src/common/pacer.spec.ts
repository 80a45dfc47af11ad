import { createServer, connect, type Server, type Socket } from 'node:net';
import { Pacer } from './pacer.js';

/** Keeps the thread busy, as a turn start does (parsing, validation, building the request). */
function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

describe('Pacer', () => {
  it('lets waiters go in the order they came', async () => {
    const pacer = new Pacer();
    const order: number[] = [];
    await Promise.all(Array.from({ length: 20 }, (_, i) => pacer.next().then(() => order.push(i))));
    expect(order).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it('lets cheap work go many at a time: a burst does not take a turn of the loop each', async () => {
    const pacer = new Pacer();
    let turns = 0;
    let counting = true;
    const count = () => {
      turns++;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    await Promise.all(Array.from({ length: 2000 }, () => pacer.next()));
    counting = false;
    expect(turns).toBeLessThan(200); // one at a time: 2000
  });

  describe('with a real socket', () => {
    let server: Server;
    let client: Socket;
    let received: (data: Buffer) => void = () => undefined;

    beforeAll(async () => {
      server = createServer((socket) => socket.on('data', (data) => received(data)));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as { port: number };
      client = connect(port, '127.0.0.1');
      await new Promise((resolve) => client.once('connect', resolve));
    });

    afterAll(async () => {
      client.destroy();
      await new Promise((resolve) => server.close(resolve));
    });

    async function order(run: (work: () => void) => Promise<void>): Promise<string[]> {
      const log: string[] = [];
      const arrived = new Promise<void>((resolve) => {
        received = () => {
          log.push('data');
          resolve();
        };
      });
      client.write('token');
      let n = 0;
      await run(() => {
        busy(2);
        log.push(`work ${n++}`);
      });
      await arrived;
      return log;
    }

    it('handles the I/O that arrived between two pieces of paced work, not after all of them', async () => {
      const pacer = new Pacer();
      const log = await order(async (work) => {
        await Promise.all(Array.from({ length: 40 }, () => pacer.next().then(work)));
      });
      expect(log).toHaveLength(41);
      expect(log.indexOf('data')).toBeLessThan(5);
    });

    it('counts the work a piece does after its first await (a turn start awaits, then works)', async () => {
      const pacer = new Pacer();
      const log = await order(async (work) => {
        const piece = async () => {
          await pacer.next();
          // A chain of steps that wait for nothing (a turn start: its queue, the cancel of the
          // last turn, the tools in scope, the model id), then the work.
          for (let i = 0; i < 20; i++) await Promise.resolve();
          work();
        };
        await Promise.all(Array.from({ length: 40 }, piece));
      });
      expect(log.indexOf('data')).toBeLessThan(5);
    });

    it('(unpaced, the same work holds the I/O back until all of it has run)', async () => {
      const log = await order(async (work) => {
        await Promise.all(Array.from({ length: 40 }, () => Promise.resolve().then(work)));
      });
      expect(log.indexOf('data')).toBe(40);
    });
  });
});
