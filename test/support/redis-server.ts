import { spawn } from 'node:child_process';
import { laterPort } from './ports.js';
import { RedisSessionStore } from '../../src/sessions/redis-session-store.js';

export interface RedisRun {
  url: string;
  stop: () => Promise<void>;
  /** Freezes the server (SIGSTOP): its connections stay open and nothing is answered. */
  freeze: () => void;
  /** Lets a frozen server go on (SIGCONT). */
  thaw: () => void;
}

/**
 * A real redis-server on `port` (a free loopback port by default: see laterPort), in memory only
 * (installed by .ci/run); `args`: more of its options (`--requirepass`).
 */
export async function startRedis(port?: number, args: string[] = []): Promise<RedisRun> {
  port ??= await laterPort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...args],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    let output = '';
    child.once('error', (error) =>
      reject(new Error(`redis-server could not start (.ci/run installs it): ${error.message}`)),
    );
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
      if (output.includes('Ready to accept connections')) resolve();
    });
    void exited.then(() => reject(new Error(`redis-server exited: ${output}`)));
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    freeze: () => child.kill('SIGSTOP'),
    thaw: () => child.kill('SIGCONT'),
    stop: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/**
 * For one describe block: a real Redis and two session stores on it, each with a client of its
 * own, as two replicas see it (filled before the block's tests, closed after).
 */
export function useRedisStores(): RedisSessionStore[] {
  let redis: RedisRun | undefined;
  const stores: RedisSessionStore[] = [];
  beforeAll(async () => {
    redis = await startRedis();
    for (let i = 0; i < 2; i++) {
      const store = new RedisSessionStore(redis.url, () => undefined);
      await store.connect();
      stores.push(store);
    }
  });
  afterAll(async () => {
    for (const store of stores) await store.close();
    await redis?.stop();
  });
  return stores;
}
