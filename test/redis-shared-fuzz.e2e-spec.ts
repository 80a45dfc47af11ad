import { createClient } from '@redis/client';
import fc from 'fast-check';
import { useBuiltEngine } from './support/built-engine.js';
import { chaosOptions, expectPlainErrors, FAULT_WORDS } from './support/chaos-checks.js';
import { FakeLlm, sseStructuredCalls, sseText } from './support/fake-llm.js';
import { RecordingServer } from './support/recording-server.js';
import { startRedis, type RedisRun } from './support/redis-server.js';
import { writeToolsFile } from './support/tools-file.js';
import { WsClient } from './support/ws-client.js';

const ADMIN = { Authorization: 'Bearer adm-1', 'Content-Type': 'application/json' };
/** Where the replicas keep the tools of `POST /api/tools` (see replica-tools.ts). */
const OVERRIDE = 'agent-engine:tools:override';

const anything = fc.jsonValue({ maxDepth: 2 });
const text = fc.oneof(
  fc.string({ maxLength: 16 }),
  fc.constantFrom('', 'not json', '{', '[1,', 'null', '0', '-1', '1e999', 'nan', 'half \ud800'),
  anything.map((value) => JSON.stringify(value)),
);
/** A value of any Redis type, as another version (or damage) may leave at a key the engine uses. */
const redisValue = fc.oneof(
  fc.record({ type: fc.constant('string' as const), value: text }),
  fc.record({
    type: fc.constant('hash' as const),
    value: fc.dictionary(fc.constantFrom('id', 'definitions', 'owner', 'data', 'x'), text, {
      minKeys: 1,
      maxKeys: 3,
    }),
  }),
  fc.record({ type: fc.constant('list' as const), value: fc.array(text, { minLength: 1 }) }),
  fc.record({
    type: fc.constant('zset' as const),
    value: fc.array(
      fc.record({ value: text, score: fc.double({ noNaN: true, min: -1e15, max: 1e15 }) }),
      { minLength: 1, maxLength: 3 },
    ),
  }),
  fc.record({ type: fc.constant('set' as const), value: fc.array(text, { minLength: 1 }) }),
);
/** A message on one of the engine's channels: of the right shape but wrong in part, or anything. */
const message = fc.oneof(
  text,
  fc.record({ resumed: text, by: text }, { requiredKeys: [] }).map((m) => JSON.stringify(m)),
  fc.record({ results: text }).map((m) => JSON.stringify(m)),
  fc
    .record(
      {
        id: fc.oneof(fc.uuid(), text),
        // What another replica may ask of this one without ending a session the run needs.
        op: fc.oneof(fc.constantFrom('list', 'read', 'machine', 'fax', 'note'), text),
        session: text,
        data: anything,
        replyTo: fc.oneof(fc.constant('agent-engine:sessions:replies:x'), text),
      },
      { requiredKeys: [] },
    )
    .map((m) => JSON.stringify(m)),
  fc.record({ id: text, result: anything }).map((m) => JSON.stringify(m)),
  fc
    .record(
      { tool: fc.constantFrom('cached', 'fragile', 'paced', 'x'), target: text, open: anything },
      { requiredKeys: [] },
    )
    .map((m) => JSON.stringify({ ...m, from: 'another' })),
);
/** What a replica of another version answers `/api/sessions`' requests (each of them). */
const replicaAnswer = fc.oneof(
  anything,
  fc.array(
    fc.oneof(
      anything,
      fc.record({ session_id: text, opened_at: fc.oneof(text, anything) }, { requiredKeys: [] }),
    ),
    { maxLength: 3 },
  ),
);
const damage = fc.record({
  replica: replicaAnswer,
  /** Values at keys the engine made (picked among them by index), or deleted. */
  keys: fc.array(fc.record({ pick: fc.nat(), value: fc.option(redisValue) }), { maxLength: 4 }),
  /** The replicas' tools, as another version or a hand may have left them. */
  override: fc.option(redisValue),
  messages: fc.array(fc.record({ pick: fc.nat(), message }), { maxLength: 6 }),
});

type Client = ReturnType<typeof createClient>;
type RedisValue = typeof redisValue extends fc.Arbitrary<infer T> ? T : never;

/** Writes `value` at `key`, of its type, in place of what was there. */
async function put(client: Client, key: string, value: RedisValue): Promise<void> {
  await client.del(key);
  if (value.type === 'string') await client.set(key, value.value);
  else if (value.type === 'hash') await client.hSet(key, value.value);
  else if (value.type === 'list') await client.rPush(key, value.value);
  else if (value.type === 'set') await client.sAdd(key, value.value);
  else await client.zAdd(key, value.value);
}

/**
 * A Redis (SESSION_STORE_URL) shared with replicas of another version, or damaged: any value of
 * any type at the keys the engine keeps there (its tools' limits, cached results, the replicas'
 * tools, background results), any message on its channels. The engine goes on answering: each
 * turn ends with its calls' results or errors in words, the HTTP API answers, a change of the
 * tools takes, and nothing it logs is a fault of its own.
 */
describe('a Redis shared with others (another version, damage)', () => {
  let redis: RedisRun;
  let client: Client;
  const llm = new FakeLlm();
  const tools = new RecordingServer();
  let definitions: unknown[] = [];
  /** A replica of another version: it answers every request of `/api/sessions` with `answer`. */
  const replica = { answer: null as unknown, subscriber: undefined as Client | undefined };
  beforeAll(async () => {
    redis = await startRedis();
    client = createClient({ url: redis.url });
    await client.connect();
    replica.subscriber = client.duplicate();
    await replica.subscriber.connect();
    await replica.subscriber.subscribe('agent-engine:sessions:requests', (raw) => {
      let request: { id?: unknown; replyTo?: unknown } | null;
      try {
        request = JSON.parse(raw) as typeof request;
      } catch {
        return;
      }
      const id = request?.id;
      const replyTo = request?.replyTo;
      if (typeof id === 'string' && typeof replyTo === 'string')
        void client.publish(replyTo, JSON.stringify({ id, result: replica.answer }));
    });
  });
  const engine = useBuiltEngine(async () => {
    const base = await tools.start();
    definitions = [
      { name: 'cached', url: `${base}/cached`, method: 'GET', cache_secs: 60 },
      { name: 'fragile', url: `${base}/fragile`, method: 'GET', max_concurrency: 2 },
      {
        name: 'paced',
        url: `${base}/paced`,
        method: 'GET',
        rate_limit: { calls: 50, per_secs: 1 },
      },
    ];
    return {
      LLM_BASE_URL: await llm.start(),
      LLM_MODEL: 'm',
      LLM_TOOLS_FILE: writeToolsFile(definitions),
      LLM_TOOL_RETRIES: '0',
      SESSION_STORE_URL: redis.url,
      ADMIN_API_KEY: 'adm-1',
    };
  });
  // After the engine's own (hooks after run in the order declared).
  afterAll(async () => {
    await replica.subscriber?.close();
    await client?.close();
    await Promise.all([redis?.stop(), llm.stop(), tools.stop()]);
  });

  /** A turn calling the three tools, then answering: every call told, the turn ended. */
  async function turn(ws: WsClient): Promise<void> {
    llm.reset();
    llm.enqueue(
      sseStructuredCalls(
        ['cached', 'fragile', 'paced'].map((name, i) => ({
          id: `c${i}`,
          name,
          arguments: { q: 'x' },
        })),
      ),
    );
    llm.fallback = () => sseText(['Done.']);
    const events = await ws.turn('go', 15_000);
    expect(events.at(-1)).toMatchObject({ type: 'assistant_end' });
    const told = events.filter((m) => m.type === 'tool_result').map((m) => m.name as string);
    expect(told.sort()).toEqual(['cached', 'fragile', 'paced']);
    for (const m of events) if (m.type === 'error') expect(m.code).not.toBe('internal');
    expectPlainErrors(events);
  }

  it('keeps answering turns, the HTTP API and changes of the tools', async () => {
    const { url, wsUrl } = engine();
    await fc.assert(
      fc.asyncProperty(damage, async ({ replica: answer, keys, override, messages }) => {
        const logged = engine().output.length;
        replica.answer = answer;
        const ws = await WsClient.connect(wsUrl);
        const id = ws.messages[0]!.session_id as string;
        try {
          await turn(ws);
          // Saved sessions are the records fuzz's (session-records-fuzz.e2e-spec.ts).
          const made = (await client.keys('agent-engine:*'))
            .filter((key) => !key.startsWith('agent-engine:session:'))
            .sort();
          for (const { pick, value } of keys) {
            const key = made[pick % made.length]!;
            if (value) await put(client, key, value);
            else await client.del(key);
          }
          if (override) await put(client, OVERRIDE, override);
          const channels = (await client.pubSubChannels('agent-engine:*')).sort();
          for (const { pick, message: m } of messages)
            await client.publish(channels[pick % channels.length]!, m);
          await turn(ws);
          for (const path of ['/api/tools', '/health']) {
            const answer = await fetch(`${url}${path}`, { headers: ADMIN });
            expect([path, answer.status]).toEqual([path, 200]);
          }
          // This replica's sessions, whatever the other answers.
          const listed = await fetch(`${url}/api/sessions`, { headers: ADMIN });
          expect(listed.status).toBe(200);
          const { sessions } = (await listed.json()) as { sessions: { session_id: unknown }[] };
          expect(sessions.map((s) => s.session_id)).toContain(id);
          const read = await fetch(`${url}/api/sessions/${id}`, { headers: ADMIN });
          expect([read.status, await read.json()]).toMatchObject([200, { session_id: id }]);
          const change = await fetch(`${url}/api/tools`, {
            method: 'POST',
            headers: ADMIN,
            body: JSON.stringify(definitions),
          });
          expect([change.status, await change.text()]).toEqual([200, expect.any(String)]);
        } finally {
          ws.close();
          await ws.closed;
        }
        // A fault of the engine's own: a stack logged, or a fault's words (not an error it says,
        // such as the replicas' tools it cannot install).
        const faults = engine()
          .output.slice(logged)
          .split('\n')
          .filter(
            (line) => /no handler|handler failed|\\n {4}at /.test(line) || FAULT_WORDS.test(line),
          );
        expect(faults).toEqual([]);
      }),
      chaosOptions(Number(process.env.CHAOS_RUNS ?? 20)),
    );
  }, 240_000);
});

describe('the replicas’ tools in Redis, not JSON (damaged, or written by hand)', () => {
  let redis: RedisRun;
  let client: Client;
  const llm = new FakeLlm();
  beforeAll(async () => {
    redis = await startRedis();
    client = createClient({ url: redis.url });
    await client.connect();
    await client.hSet(OVERRIDE, { id: 'x', definitions: 'not json' });
  });
  const definitions = [{ name: 'get_time', url: 'http://127.0.0.1:1/time', method: 'GET' }];
  const engine = useBuiltEngine(async () => ({
    LLM_BASE_URL: await llm.start(),
    LLM_MODEL: 'm',
    LLM_TOOLS_FILE: writeToolsFile(definitions),
    SESSION_STORE_URL: redis.url,
    ADMIN_API_KEY: 'adm-1',
  }));
  afterAll(async () => {
    await client?.close();
    await Promise.all([redis?.stop(), llm.stop()]);
  });

  it('starts with its tools file, says so, and a change based on what it serves replaces them', async () => {
    const { url, output } = engine();
    expect(output).toContain(
      `the tools the replicas share (Redis key ${OVERRIDE}) are not JSON, so this replica keeps its own until a change replaces them`,
    );
    const listed = await fetch(`${url}/api/tools`, { headers: ADMIN });
    const { tools } = (await listed.json()) as { tools: { name: string }[] };
    expect(tools.map((t) => t.name)).toEqual(['get_time']);
    const changed = [...definitions, { ...definitions[0], name: 'get_date' }];
    const change = await fetch(`${url}/api/tools`, {
      method: 'POST',
      headers: { ...ADMIN, 'If-Match': listed.headers.get('etag')! },
      body: JSON.stringify(changed),
    });
    expect(change.status).toBe(200);
    expect(JSON.parse((await client.hGet(OVERRIDE, 'definitions'))!)).toEqual(changed);
  }, 30_000);
});
