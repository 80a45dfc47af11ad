import { useRedisStores } from '../../test/support/redis-server.js';
import { ReplicaTools } from './replica-tools.js';

const TTL = `return redis.call('PTTL', 'agent-engine:tools:override')`;
const AGE = `redis.call('PEXPIRE', 'agent-engine:tools:override', 1000) return 1`;

describe('ReplicaTools (a real Redis)', () => {
  const stores = useRedisStores();
  const replicas: ReplicaTools[] = [];
  beforeAll(() => stores.forEach((store) => replicas.push(new ReplicaTools(store))));
  afterAll(() => replicas.forEach((r) => r.onModuleDestroy()));
  const ttl = () => stores[0]!.scripts.run(TTL, [], []) as Promise<number>;
  const renew = (replica: ReplicaTools) =>
    (replica as unknown as { renew(): Promise<void> }).renew();

  it('keeps the override a minute past the last replica holding it, renewed by those that do', async () => {
    const [a, b] = replicas as [ReplicaTools, ReplicaTools];
    expect(await b.current()).toBeNull();
    await a.publish([{ name: 'x' }]);
    expect(await ttl()).toBeGreaterThan(55_000);
    expect(await b.current()).toEqual([{ name: 'x' }]);
    // B holds it now: its renewal keeps it.
    await stores[0]!.scripts.run(AGE, [], []);
    await renew(b);
    expect(await ttl()).toBeGreaterThan(55_000);
    // Replaced by B: A's renewal does not keep B's alive past its time, B's does.
    await b.publish([{ name: 'y' }]);
    await stores[0]!.scripts.run(AGE, [], []);
    await renew(a);
    expect(await ttl()).toBeLessThanOrEqual(1000);
    await renew(b);
    expect(await ttl()).toBeGreaterThan(55_000);
    expect(await a.current()).toEqual([{ name: 'y' }]);
  });

  it('starts with the tools file when the replicas hold an override it cannot use', async () => {
    const [a, b] = replicas as [ReplicaTools, ReplicaTools];
    await a.publish([{ name: 'needs_a_secret' }]);
    const installed: unknown[] = [];
    await b.installCurrent((definitions) => {
      installed.push(definitions);
      return Promise.reject(new Error("tool #1 'needs_a_secret': TOOL_SECRET_X is not set"));
    });
    expect(installed).toEqual([[{ name: 'needs_a_secret' }]]);
    // B does not hold it: its renewal keeps nothing alive.
    await stores[0]!.scripts.run(AGE, [], []);
    await renew(b);
    expect(await ttl()).toBeLessThanOrEqual(1000);
  });
});
