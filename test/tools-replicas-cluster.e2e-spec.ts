import { ENGINE_START_MS, useBuiltEngines, type ListeningEngine } from './support/built-engine.js';
import { startRedis, type RedisRun } from './support/redis-server.js';
import { installedSizes, putAtOnce, putTool, toolSet } from './support/tool-changes.js';
import { postTools, writeToolsFile } from './support/tools-file.js';
import { untilAsync } from './support/waiting.js';

/**
 * Two replicas of two engine processes each (ENGINE_PROCESSES=2), sharing a Redis, as a
 * Kubernetes Deployment runs them: changes of the tools made at once, wherever they land, all
 * stay, in every process, and no process ever goes back to an earlier set.
 */
describe('tool changes across replicas of several processes', () => {
  let redis: RedisRun;
  const startEngine = useBuiltEngines();
  const replicas: ListeningEngine[] = [];
  beforeAll(async () => {
    redis = await startRedis();
    const env = {
      ENGINE_PROCESSES: '2',
      LLM_BASE_URL: 'http://127.0.0.1:9/v1',
      LLM_MODEL: 'm',
      LLM_TOOLS_FILE: writeToolsFile([{ name: 'from_file', url: 'http://127.0.0.1:9/file' }]),
      SESSION_STORE_URL: redis.url,
    };
    for (let i = 0; i < 2; i++) replicas.push(await startEngine(env, 2));
  }, ENGINE_START_MS);
  afterAll(() => redis?.stop());

  it('keeps every change made at once, in all four processes, under one ETag', async () => {
    const urls = replicas.map((r) => r.url);
    expect(
      (await postTools(urls[0]!, [{ name: 'first', url: 'http://crm.example/a' }])).status,
    ).toBe(200);
    /** What each process shows: connections of their own go to each process in turn. */
    const everywhere = () => Promise.all([...urls, ...urls, ...urls].map((u) => toolSet(u)));
    await untilAsync(
      async () => (await everywhere()).every((set) => set.names.join() === 'first'),
      'every process holding the first set',
    );
    const { etag } = await toolSet(urls[1]!);
    const logged = replicas.map((r) => r.output.length);
    const names = ['t1', 't2', 't3', 't4', 't5', 't6', 't7', 't8', 't9', 't10'];
    expect(await putAtOnce(urls, names)).toEqual(names.map(() => 200));
    const every = ['first', ...names].sort().join();
    await untilAsync(
      async () => (await everywhere()).every((set) => [...set.names].sort().join() === every),
      'every process holding every change',
    );
    expect(new Set((await everywhere()).map((set) => set.etag)).size).toBe(1);
    replicas.forEach((replica, i) => {
      for (const sizes of installedSizes(replica.output.slice(logged[i])).values())
        expect(sizes).toEqual([...sizes].sort((a, b) => a - b));
    });
    const stale = await Promise.all(urls.map((u) => putTool(u, 'late', {}, etag)));
    expect(stale.map((r) => r.status)).toEqual([412, 412]);
  }, 60000);
});
