import { Engine } from './support/engine.js';
import { sseText, useFakeLlm } from './support/fake-llm.js';
import { RecordingServer } from './support/recording-server.js';
import { writeToolsFile } from './support/tools-file.js';
import { xmlCall } from './support/turn-harness.js';
import { WsClient } from './support/ws-client.js';
import { untilAsync } from './support/waiting.js';
import { samples } from './support/prometheus.js';

describe('GET /metrics (Prometheus)', () => {
  const { llm, url } = useFakeLlm();
  const tools = new RecordingServer();
  let engine: Engine;
  beforeAll(async () => {
    const base = await tools.start();
    tools.respond((_req, res) => res.end('sunny'));
    engine = await Engine.start({
      LLM_BASE_URL: url(),
      LLM_MODEL: 'm',
      LLM_TOOLS_FILE: writeToolsFile([{ name: 'get_weather', url: `${base}/{city}` }]),
      ADMIN_API_KEY: 'admin-key',
    });
  });
  afterAll(async () => {
    await engine?.stop();
    await tools.stop();
  });

  const scrape = (key = 'admin-key') =>
    fetch(`${engine.httpUrl}/metrics`, { headers: { Authorization: `Bearer ${key}` } });

  it('counts what users and operators notice: sessions, turns, latencies, tool calls, errors', async () => {
    const ws = await WsClient.connect(engine.wsUrl);
    llm.enqueue(sseText([xmlCall('get_weather', { city: 'Paris' })]), sseText(['Sunny.']));
    await ws.turn('Weather in Paris?');
    ws.send('{"type":');
    await ws.waitFor((m) => m.type === 'error');

    const res = await scrape();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const got = samples(await res.text());
    expect(got.get('agent_engine_ws_sessions')).toBe(1);
    expect(got.get('agent_engine_sessions_total{resumed="false"}')).toBe(1);
    expect(got.get('agent_engine_turns_total{outcome="completed"}')).toBe(1);
    expect(got.get('agent_engine_turn_first_text_seconds_count')).toBe(1);
    expect(got.get('agent_engine_llm_requests_total{kind="stream",outcome="ok"}')).toBe(2);
    expect(got.get('agent_engine_tool_calls_total{tool="get_weather",ok="true"}')).toBe(1);
    expect(got.get('agent_engine_errors_total{code="invalid_message"}')).toBe(1);
    expect(got.get('process_cpu_user_seconds_total')).toBeGreaterThan(0);
    ws.close();
    await ws.closed;
    await untilAsync(
      async () =>
        samples(await (await scrape()).text()).get(
          'agent_engine_sessions_ended_total{reason="client"}',
        ) === 1,
      'the ended session counted',
    );
  });

  it('needs ADMIN_API_KEY when it is set, and is in Swagger', async () => {
    expect((await scrape('wrong')).status).toBe(401);
    const doc = (await (await fetch(`${engine.httpUrl}/docs-json`)).json()) as any;
    expect(doc.paths['/metrics'].get).toMatchObject({ operationId: 'scrape', tags: ['metrics'] });
  });

  it('answers 404 with METRICS_ENABLED=false', async () => {
    const off = await Engine.start({
      LLM_BASE_URL: url(),
      LLM_MODEL: 'm',
      METRICS_ENABLED: 'false',
    });
    try {
      const res = await fetch(`${off.httpUrl}/metrics`);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({
        message: 'metrics are off (METRICS_ENABLED=false)',
      });
    } finally {
      await off.stop();
    }
  });
});
