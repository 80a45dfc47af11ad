import { setTimeout as sleep } from 'node:timers/promises';
import { TokenServer } from '../../test/support/token-server.js';
import { useRedisStores } from '../../test/support/redis-server.js';
import type { SharedScripts } from '../sessions/session-store.js';
import { oauth2Identity, OAuth2Tokens, type OAuth2Config } from './oauth2.js';
import { SharedTokens } from './shared-tokens.js';
import { MemoryShelf } from '../cluster/memory-shelf.js';
import { redisShelf, type Shelf } from '../cluster/shelf.js';

/** Two replicas' token holders on one real Redis, against a real token endpoint. */
describe('OAuth 2.0 tokens shared by the processes (Redis, or the primary of ENGINE_PROCESSES)', () => {
  const stores = useRedisStores();
  const server = new TokenServer();
  let config: OAuth2Config;
  beforeAll(async () => {
    config = {
      tokenUrl: await server.start(),
      clientId: 'agent',
      clientSecret: 's3cret:&',
      clientAuth: 'basic',
    };
  });
  afterAll(() => server.stop());
  beforeEach(() => {
    server.requests.length = 0;
    server.expiresIn = 3600;
  });
  /** The token holder of one more process, on replica `i`'s Redis client. */
  const process = (i: number) =>
    new OAuth2Tokens(() => {}, new SharedTokens(redisShelf(stores[i]!.scripts)));
  const scope = (name: string): OAuth2Config => ({ ...config, scope: name });

  it('asks the endpoint once for every process and replica, and keeps the token encrypted', async () => {
    const client = scope('orders.read');
    const first = await process(0).get(client, 5000);
    const [second, third] = await Promise.all([
      process(1).get(client, 5000),
      process(0).get(client, 5000),
    ]);
    expect([second, third]).toEqual([first, first]);
    expect(server.requests).toHaveLength(1);
    // What Redis holds is of no use without the client's secret.
    const keys = (await stores[0]!.scripts.run(
      `return redis.call('KEYS', 'agent-engine:oauth2:*')`,
      [],
      [],
    )) as string[];
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) {
      const held = String(
        await stores[0]!.scripts.run(`return redis.call('GET', KEYS[1])`, [key], []),
      );
      expect(held).not.toContain(first);
    }
    const stranger = new SharedTokens(redisShelf(stores[1]!.scripts));
    expect(await stranger.read(oauth2Identity(client), 'another secret')).toBeUndefined();
    // Its time in Redis is the token's (an hour, less the margin kept locally).
    const ttl = Number(
      await stores[0]!.scripts.run(`return redis.call('PTTL', KEYS[1])`, [keys[0]!], []),
    );
    expect(ttl).toBeGreaterThan(3_000_000);
    expect(ttl).toBeLessThanOrEqual(3_600_000);
  });

  it('asks anew everywhere for a token the API refused, once', async () => {
    const client = scope('orders.write');
    const a = process(0);
    const first = await a.get(client, 5000);
    await a.refuse(client, first);
    const b = process(1);
    const second = await b.get(client, 5000);
    expect(second).not.toBe(first);
    // The refusal of the old token, late, does not drop the new one.
    await b.refuse(client, first);
    expect(await process(0).get(client, 5000)).toBe(second);
    expect(server.requests).toHaveLength(2);
  });

  it('shares a token whose lifetime ends: the next process asks anew', async () => {
    server.expiresIn = 1; // kept half of it: 0.5 s
    const client = scope('short');
    const first = await process(0).get(client, 5000);
    expect(await process(1).get(client, 5000)).toBe(first);
    await sleep(600);
    expect(await process(1).get(client, 5000)).not.toBe(first);
    expect(server.requests).toHaveLength(2);
  });

  it('lets each process ask for its own while Redis is away', async () => {
    const down: SharedScripts = { run: () => Promise.reject(new Error('connection closed')) };
    const client = scope('away');
    const away = () => new OAuth2Tokens(() => {}, new SharedTokens(redisShelf(down)));
    const [a, b] = await Promise.all([away().get(client, 5000), away().get(client, 5000)]);
    expect(a).not.toBe(b);
    expect(server.requests).toHaveLength(2);
  });

  it('without Redis, asks once for every process through the primary, also after a refusal', async () => {
    const memory = new MemoryShelf();
    const stored: string[] = [];
    // What each process reaches over its line to the primary.
    const shelf: Shelf = {
      entry: (key) => Promise.resolve(memory.entry(key)),
      set: (key, value, ms) => {
        stored.push(value);
        return Promise.resolve(memory.set(key, value, ms));
      },
      drop: (key, digest) => Promise.resolve(memory.drop(key, digest)),
      append: () => Promise.reject(new Error('not used by tokens')),
      take: () => Promise.reject(new Error('not used by tokens')),
    };
    const [a, b] = [0, 1].map(() => new OAuth2Tokens(() => {}, new SharedTokens(shelf)));
    const first = await a!.get(config, 5000);
    expect(await b!.get(config, 5000)).toBe(first);
    expect(server.requests).toHaveLength(1);
    // Encrypted: the primary holds no token in the clear.
    expect(stored).toHaveLength(1);
    expect(stored[0]).not.toContain(first);
    // The API refuses it to one process: that one gets a new token, the other then takes it.
    await b!.refuse(config, first);
    const second = await b!.get(config, 5000);
    expect(second).not.toBe(first);
    await a!.refuse(config, first);
    expect(await a!.get(config, 5000)).toBe(second);
    expect(server.requests).toHaveLength(2);
  });
});
