import { sseRawArgumentsCall, sseStructuredCalls, sseText } from './support/fake-llm.js';
import { samples } from './support/prometheus.js';
import { useClientPerTest, useEngineRig, xmlCall } from './support/turn-harness.js';
import { weatherTool, writeToolsFile } from './support/tools-file.js';

const call = (name: string, args: Record<string, unknown>) =>
  sseStructuredCalls([{ id: `call_${name}`, name, arguments: args }]);

/**
 * A call the model gets wrong is not run, and says so (`tool_result`'s `model_error`): a team
 * sees how often its model errs, by tool and kind, apart from its backends' failures.
 */
describe('model errors', () => {
  const rig = useEngineRig(
    (base) => ({
      LLM_TOOLS_FILE: writeToolsFile([weatherTool(base)]),
      LLM_TOOL_MAX_ITERATIONS: '10',
    }),
    (req, res) => {
      res.statusCode = req.url.startsWith('/Down') ? 500 : 200;
      res.end(req.url.startsWith('/Down') ? 'down' : 'sunny');
    },
  );
  const client = useClientPerTest(rig);
  const results = (events: { type: string }[]) => events.filter((e) => e.type === 'tool_result');

  it('marks a tool not offered, arguments refused, a call cut off; not a backend failure', async () => {
    const { ws } = client;
    ws.send({
      type: 'session.update',
      client_tools: [
        {
          name: 'open_map',
          description: 'Shows a city',
          parameters: {
            type: 'object',
            properties: { city: { type: 'string' } },
            required: ['city'],
          },
        },
      ],
    });
    await ws.waitFor((m) => m.type === 'session.updated');
    rig.llm.enqueue(
      call('nope', {}),
      call('get_weather', {}),
      sseRawArgumentsCall('get_weather', '[1]'),
      call('open_map', { zoom: 3 }),
      sseText([xmlCall('get_weather', { city: 'Rome' }).slice(0, 40)], 'length'),
      call('get_weather', { city: 'Down' }),
      call('get_weather', { city: 'Rome' }),
      sseText(['It is sunny.']),
    );
    const events = await ws.turn('Weather?', 10_000);
    expect(results(events).map((e: any) => [e.name, e.ok, e.model_error])).toEqual([
      ['nope', false, 'unknown_tool'],
      ['get_weather', false, 'invalid_arguments'],
      ['get_weather', false, 'invalid_arguments'],
      ['open_map', false, 'invalid_arguments'],
      ['get_weather', false, 'cut_off'],
      ['get_weather', false, undefined],
      ['get_weather', true, undefined],
    ]);
    // None of them reached the tool server: the backend saw the two calls the model got right.
    expect(rig.tools.requests.map((r) => r.path)).toEqual(['/Down', '/Rome']);

    const metrics = samples(await (await fetch(`${rig.engine.httpUrl}/metrics`)).text());
    const errors = (tool: string, kind: string) =>
      metrics.get(`agent_engine_tool_model_errors_total{tool="${tool}",kind="${kind}"}`);
    expect(errors('(unknown)', 'unknown_tool')).toBe(1);
    expect(errors('get_weather', 'invalid_arguments')).toBe(2);
    expect(errors('(client)', 'invalid_arguments')).toBe(1);
    expect(errors('get_weather', 'cut_off')).toBe(1);
    expect(metrics.get('agent_engine_tool_calls_total{tool="get_weather",ok="false"}')).toBe(4);
  });
});
