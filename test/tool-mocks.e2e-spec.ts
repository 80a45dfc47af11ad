import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { useClientPerTest, useEngineRig } from './support/turn-harness.js';
import { weatherTool, writeToolsFile } from './support/tools-file.js';

const weatherIn = (city?: string) =>
  sseStructuredCalls([{ id: 'c1', name: 'get_weather', arguments: city ? { city } : {} }]);

/**
 * `tool_mocks` (SESSION_TOOL_MOCKS=true, an engine under test): a session gives its tools'
 * results, and the model reads them with nothing sent to the tools' services (checks of a model
 * against tools that act: `npm run eval`).
 */
describe('tool_mocks on an engine under test', () => {
  const rig = useEngineRig((base) => ({
    LLM_TOOLS_FILE: writeToolsFile([weatherTool(base)]),
    SESSION_TOOL_MOCKS: 'true',
  }));
  const client = useClientPerTest(rig);

  it('gives the mocked result to the model, sends nothing, and says so in tool_result', async () => {
    const { ws } = client;
    ws.send({ type: 'session.update', tool_mocks: { get_weather: { sky: 'snow' } } });
    const updated = await ws.waitFor((m) => m.type === 'session.updated');
    expect(updated.settings.tool_mocks).toEqual({ get_weather: '{"sky":"snow"}' });
    rig.llm.enqueue(weatherIn('Rome'), sseText(['Snow in Rome.']));
    const events = await ws.turn('Weather in Rome?');
    expect(events.find((e) => e.type === 'tool_result')).toMatchObject({
      name: 'get_weather',
      ok: true,
      mocked: true,
    });
    expect(rig.tools.requests).toEqual([]);
    expect(rig.llm.requests[1]!.body.messages.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'c1',
      content: '{"sky":"snow"}',
    });
    // Arguments the tool refuses are still the model's error, not mocked away.
    rig.llm.enqueue(weatherIn(), sseText(['Sorry.']));
    const wrong = await ws.turn('Weather?');
    expect(wrong.find((e) => e.type === 'tool_result')).toMatchObject({
      ok: false,
      model_error: 'invalid_arguments',
    });
    // Cleared: the tool runs again.
    ws.send({ type: 'session.update', tool_mocks: null });
    await ws.waitFor((m) => m.type === 'session.updated' && !m.settings.tool_mocks);
    rig.llm.enqueue(weatherIn('Oslo'), sseText(['Done.']));
    await ws.turn('Weather in Oslo?');
    expect(rig.tools.requests.map((r) => r.path)).toEqual(['/Oslo']);
  });
});

describe('tool_mocks on an engine in service', () => {
  const rig = useEngineRig((base) => ({ LLM_TOOLS_FILE: writeToolsFile([weatherTool(base)]) }));
  const client = useClientPerTest(rig);

  it('refuses them: a client may not make up what its tools answer', async () => {
    const { ws } = client;
    ws.send({ type: 'session.update', tool_mocks: { get_weather: 'Sunny.' } });
    expect(await ws.waitFor((m) => m.type === 'error')).toEqual({
      type: 'error',
      code: 'invalid_message',
      message:
        'this engine takes no "tool_mocks" (SESSION_TOOL_MOCKS=false): they are for engines under test; nothing was changed',
    });
    rig.llm.enqueue(weatherIn('Rome'), sseText(['Fine.']));
    await ws.turn('Weather in Rome?');
    expect(rig.tools.requests.map((r) => r.path)).toEqual(['/Rome']);
  });
});
