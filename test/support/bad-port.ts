import type { Server } from 'node:net';

/**
 * Ports the Fetch standard calls bad (fetch refuses to reach them) that need no privilege to
 * listen on: X11's, IRC's, SIP's, …
 */
const BAD_PORTS = [6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080, 5060, 5061, 4190];

/** `server` listening on loopback at `port`; rejects if it cannot (EADDRINUSE). */
export const listenOn = (server: Server) => (port: number) =>
  new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });

/** Listens by `listen` on the first bad port free (other suites may hold some); its number. */
export async function onBadPort(listen: (port: number) => Promise<unknown>): Promise<number> {
  for (const port of BAD_PORTS) {
    try {
      await listen(port);
      return port;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    }
  }
  throw new Error(`every one of the bad ports ${BAD_PORTS.join(', ')} is taken`);
}
