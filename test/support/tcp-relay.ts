import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP relay on loopback to `port`: a network between a client and the engine that a test can
 * cut (every connection through it reset at once, as a dropped Wi-Fi or mobile link leaves them).
 */
export class TcpRelay {
  private readonly open = new Set<Socket>();
  private readonly server: Server;

  constructor(port: number) {
    this.server = createServer((client) => {
      const upstream = connect(port, '127.0.0.1');
      for (const [a, b] of [
        [client, upstream],
        [upstream, client],
      ] as const) {
        this.open.add(a);
        a.pipe(b);
        a.on('error', () => b.destroy());
        a.on('close', () => {
          this.open.delete(a);
          b.destroy();
        });
      }
    });
  }

  /** Listens on a free port; resolves to its base URL. */
  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Resets every connection through the relay; new ones go through again. */
  cut(): void {
    for (const socket of this.open) socket.resetAndDestroy();
  }

  async stop(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
