import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** The first port of the range `listen(0)` picks from (Linux's setting; 32768 by default). */
function ephemeralStart(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').split(/\s+/);
    return Number(low) || 32768;
  } catch {
    return 32768;
  }
}

/** Whether a server could listen on `port` of 127.0.0.1 now (it listens, then closes). */
function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/**
 * A loopback port nothing listens on, for a server a test starts on it later (down, then up; a
 * redis-server told its port): taken below the range `listen(0)` picks from, so that a server
 * another spec file starts on port 0 meanwhile cannot be given it, as a port freed after a probe
 * in that range could be. Chosen at random (10 000 ports and more), checked free now.
 */
export async function laterPort(): Promise<number> {
  const top = ephemeralStart();
  const bottom = top > 12_000 ? Math.max(10_000, top - 20_000) : 1024;
  for (let tries = 0; tries < 50; tries++) {
    const port = bottom + Math.floor(Math.random() * (top - bottom));
    if (await isFree(port)) return port;
  }
  throw new Error(`no free port found between ${bottom} and ${top - 1}`);
}
