import { useRedisStores } from '../../test/support/redis-server.js';
import type { SessionStore, SharedScripts } from '../sessions/session-store.js';
import { OverrideRecord } from './override-record.js';
import { ReplicaTools } from './replica-tools.js';
import { overrideVersion, type Claim } from './tool-set-version.js';

const set = (name: string) => [{ name, url: `http://crm.example/${name}` }];
/**
 * A process's side of a claim: its check and its installs (a later override it adopts, in
 * `adopted`), in turn as the registry makes them; `wait`: what its turn comes after.
 */
const local = (
  based: () => boolean,
  commit: () => void,
  adopted: unknown[] = [],
  wait: Promise<unknown> = Promise.resolve(),
) => {
  let turns = wait;
  const inTurn = <T>(step: () => T | PromiseLike<T>): Promise<T> => {
    const done: Promise<T> = turns.then(step);
    turns = done.catch(() => undefined);
    return done;
  };
  const adopt = (later: unknown) => (adopted.push(later), Promise.resolve());
  return { based, commit, adopt, inTurn };
};

/** A cluster's primary as the record sees it: what it was asked to publish, and on what basis. */
class Primary {
  published: { definitions: unknown; basedOn?: string }[] = [];
  /** The override it holds: the last it took. */
  held: unknown = null;
  constructor(private readonly answer?: Claim) {}
  publish(definitions: unknown, basedOn?: string): Promise<Claim | undefined> {
    this.published.push({ definitions, ...(basedOn !== undefined && { basedOn }) });
    if (this.answer?.outcome === 'claimed') this.held = definitions;
    return Promise.resolve(this.answer);
  }
  current(): Promise<unknown> {
    return Promise.resolve(this.held);
  }
}

describe('OverrideRecord with a real Redis', () => {
  const stores = useRedisStores();
  const replicas: ReplicaTools[] = [];
  afterAll(() => replicas.forEach((r) => r.onModuleDestroy()));
  const replica = (store: SessionStore) => {
    const tools = new ReplicaTools(store);
    replicas.push(tools);
    return tools;
  };
  /** One replica's record (and its primary): `claim` answers the claim and whether it committed. */
  const recordOf = (store: SessionStore, primary = new Primary()) => {
    const record = new OverrideRecord(replica(store), primary);
    const claim = async (definitions: unknown, basedOn: string | undefined) => {
      let committed = false;
      const claimed = await record.claim(
        definitions,
        basedOn,
        local(
          () => true,
          () => (committed = true),
        ),
      );
      return { ...claimed, committed };
    };
    return { claim, primary };
  };

  it('takes a change only if it was based on the override Redis holds, whichever replica made them, and answers the one it holds', async () => {
    const a = recordOf(stores[0]!);
    const b = recordOf(stores[1]!);
    expect(await a.claim(set('one'), '')).toEqual({ outcome: 'claimed', committed: true });
    // The version Redis computes of what it holds is the one the engine computes.
    expect(await b.claim(set('two'), '')).toEqual({
      outcome: 'conflict',
      definitions: set('one'),
      committed: false,
    });
    expect(await b.claim(set('two'), overrideVersion(set('one')))).toEqual({
      outcome: 'claimed',
      committed: true,
    });
    // The replica's other processes are told by its primary, whatever they held.
    expect(b.primary.published).toEqual([{ definitions: set('two') }]);
    // Without a basis, a change replaces whatever is held.
    expect(await a.claim(set('three'), undefined)).toMatchObject({ outcome: 'claimed' });
    expect(await b.claim(set('four'), overrideVersion(set('two')))).toMatchObject({
      outcome: 'conflict',
      definitions: set('three'),
    });
  });

  it('installs here, in its turn, the override Redis holds then: a later one made meanwhile rather than its own', async () => {
    const a = new OverrideRecord(replica(stores[0]!), new Primary());
    const b = recordOf(stores[1]!);
    let committed = false;
    const adopted: unknown[] = [];
    let turnComes!: () => void;
    const wait = new Promise<void>((resolve) => (turnComes = resolve));
    const claim = a.claim(
      set('mine'),
      undefined,
      local(
        () => true,
        () => (committed = true),
        adopted,
        wait,
      ),
    );
    // While this process's turn waits (an earlier install), another replica changes the set.
    await new Promise((r) => setTimeout(r, 50));
    expect(await b.claim(set('later'), overrideVersion(set('mine')))).toMatchObject({
      outcome: 'claimed',
    });
    turnComes();
    expect(await claim).toEqual({ outcome: 'claimed' });
    expect(committed).toBe(false);
    expect(adopted).toEqual([set('later')]);
  });

  it('takes a change based on an override Redis no longer holds (restarted, evicted)', async () => {
    const a = recordOf(stores[0]!);
    expect(await a.claim(set('kept'), undefined)).toMatchObject({ outcome: 'claimed' });
    await stores[0]!.scripts.run(
      `return redis.call('DEL', KEYS[1])`,
      ['agent-engine:tools:override'],
      [],
    );
    expect(await a.claim(set('after'), overrideVersion(set('kept')))).toEqual({
      outcome: 'claimed',
      committed: true,
    });
    expect(await recordOf(stores[1]!).claim(set('other'), '')).toMatchObject({
      outcome: 'conflict',
      definitions: set('after'),
    });
  });
});

describe('OverrideRecord without Redis, or while it is away', () => {
  const noRedis = { scripts: undefined } as unknown as SessionStore;
  const down: SharedScripts = { run: () => Promise.reject(new Error('connection closed')) };
  const away = { scripts: down, broadcast: undefined } as unknown as SessionStore;
  const claim = async (record: OverrideRecord, basedOn: string | undefined, based: boolean) => {
    let committed = false;
    const claimed = await record.claim(
      set('x'),
      basedOn,
      local(
        () => based,
        () => (committed = true),
      ),
    );
    return { ...claimed, committed };
  };

  it("leaves the decision to the cluster's primary, or to the process alone outside a cluster", async () => {
    const conflict: Claim = { outcome: 'conflict', definitions: set('other') };
    const primary = new Primary(conflict);
    const inCluster = new OverrideRecord(new ReplicaTools(noRedis), primary);
    expect(await claim(inCluster, 'v1', true)).toEqual({ ...conflict, committed: false });
    expect(primary.published).toEqual([{ definitions: set('x'), basedOn: 'v1' }]);
    const alone = new OverrideRecord(new ReplicaTools(noRedis), new Primary(undefined));
    expect(await claim(alone, 'v1', false)).toEqual({
      outcome: 'conflict',
      definitions: null,
      committed: false,
    });
    expect(await claim(alone, 'v1', true)).toEqual({ outcome: 'claimed', committed: true });
    expect(await claim(alone, undefined, false)).toEqual({ outcome: 'claimed', committed: true });
  });

  it("checks the process's own set while Redis is away, and tells its other processes of a change made", async () => {
    const primary = new Primary({ outcome: 'claimed' });
    const record = new OverrideRecord(new ReplicaTools(away), primary);
    expect(await claim(record, 'v1', false)).toMatchObject({
      outcome: 'conflict',
      committed: false,
    });
    expect(primary.published).toEqual([]);
    expect(await claim(record, 'v1', true)).toEqual({ outcome: 'claimed', committed: true });
    expect(primary.published).toEqual([{ definitions: set('x') }]);
  });
});
