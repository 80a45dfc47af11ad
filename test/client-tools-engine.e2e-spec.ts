import { FakeLlm, sseStructuredCalls, sseText } from './support/fake-llm.js';
import { postTools, weatherTool } from './support/tools-file.js';
import { useClientPerTest, useEngineRig } from './support/turn-harness.js';
import { WsClient } from './support/ws-client.js';

/** Tools the client runs itself, beside the engine's own. */
describe("client tools and the engine's tools", () => {
  const rig = useEngineRig(() => ({ LLM_MODEL: 'm' }));
  const client = useClientPerTest(rig);

  it('an engine tool installed later under a client tool’s name is the one offered and called', async () => {
    const ws = client.ws;
    ws.send({
      type: 'session.update',
      client_tools: [{ name: 'get_weather', description: "The app's own weather" }],
    });
    await ws.waitFor((m) => m.type === 'session.updated');
    expect((await postTools(rig.engine.httpUrl, [weatherTool(rig.toolsUrl)])).status).toBe(200);
    rig.llm.enqueue(
      sseStructuredCalls([{ id: 'call_w', name: 'get_weather', arguments: { city: 'Oslo' } }]),
      sseText(['Cold.']),
    );
    const turn = await ws.turn('weather in Oslo');
    const offered = rig.llm.requests[0]!.body.tools.map((t: any) => t.function.description);
    expect(offered).toEqual(['Weather of a city']);
    expect(turn.some((m) => m.type === 'client_tool_call')).toBe(false);
    expect(rig.tools.requests.map((r) => r.path)).toEqual(['/Oslo']);
  });
});

describe('client tools with tool calling switched off', () => {
  const llm = new FakeLlm();
  it('refuses a declaration (LLM_TOOLS_ENABLED=false)', async () => {
    const { Engine } = await import('./support/engine.js');
    const engine = await Engine.start({
      LLM_BASE_URL: await llm.start(),
      LLM_TOOLS_ENABLED: 'false',
    });
    try {
      const ws = await WsClient.connect(engine.wsUrl);
      ws.send({ type: 'session.update', client_tools: [{ name: 'vibrate' }] });
      const error = await ws.waitFor((m) => m.type === 'error');
      expect(error.message).toBe(
        'this engine calls no tools (LLM_TOOLS_ENABLED=false): "client_tools" must be empty; nothing was changed',
      );
      ws.close();
    } finally {
      await engine?.stop();
      await llm.stop();
    }
  });
});
