import { Engine } from './support/engine.js';
import { sseText, useFakeLlm } from './support/fake-llm.js';
import { useRecordingServer } from './support/recording-server.js';
import { startRedis, type RedisRun } from './support/redis-server.js';
import { writeToolsFile } from './support/tools-file.js';
import { WsClient } from './support/ws-client.js';

const tool = (base: string, name: string) => ({
  name,
  description: `The ${name} tool.`,
  url: `${base}/${name}`,
});

/**
 * A rolling update that changed the configuration: a session saved by the old replicas is
 * resumed by a new one that no longer offers its model, a tool it chose, or its time. The
 * conversation goes on with what this engine offers, rather than failing each turn.
 */
describe('a session resumed by a replica configured otherwise', () => {
  const { llm, url } = useFakeLlm();
  const tools = useRecordingServer();
  let redis: RedisRun;
  let before: Engine;
  let after: Engine;
  beforeAll(async () => {
    redis = await startRedis();
    const env = { LLM_BASE_URL: url(), LLM_MODEL: 'qwen3-8b', SESSION_STORE_URL: redis.url };
    before = await Engine.start({
      ...env,
      LLM_MODELS: 'qwen3-8b,qwen3-32b',
      SESSION_MAX_SECS: '3600',
      LLM_TOOLS_FILE: writeToolsFile(['get_weather', 'book'].map((n) => tool(tools.url(), n))),
    });
    after = await Engine.start({
      ...env,
      LLM_MODELS: 'qwen3-8b',
      SESSION_MAX_SECS: '600',
      LLM_TOOLS_FILE: writeToolsFile([tool(tools.url(), 'get_weather')]),
    });
  });
  afterAll(async () => {
    await before.stop();
    await after.stop();
    await redis.stop();
  });

  it('goes on with the engine model, the tools still there and SESSION_MAX_SECS', async () => {
    llm.fallback = () => sseText(['Fine.']);
    const old = await WsClient.connect(before.wsUrl);
    const { session_id: id, resume_token: token } = old.messages[0]!;
    old.send({
      type: 'session.update',
      model: 'qwen3-32b',
      max_secs: 1800,
      tools: ['get_weather', 'book'],
      language: 'it',
    });
    await old.waitFor((m) => m.type === 'session.updated');
    await old.turn('Book a table.');
    expect(llm.requests[0]!.body.model).toBe('qwen3-32b');
    old.close();
    await old.closed;

    const resumed = await WsClient.connect(`${after.wsUrl}?resume=${encodeURIComponent(token)}`);
    expect(resumed.messages[0]).toMatchObject({ session_id: id, resumed: true });
    expect(resumed.messages[0]!.settings).toMatchObject({
      model: null,
      max_secs: null,
      tools: ['get_weather'],
      // What this engine still takes is kept.
      language: 'it',
    });
    await resumed.turn('And the weather?');
    const request = llm.requests[1]!.body;
    expect(request.model).toBe('qwen3-8b');
    expect(request.tools.map((t: any) => t.function.name)).toEqual(['get_weather']);
    expect(
      request.messages.filter((m: any) => m.role === 'user').map((m: any) => m.content),
    ).toEqual(['Book a table.', 'And the weather?']);
    resumed.close();
  });
});
