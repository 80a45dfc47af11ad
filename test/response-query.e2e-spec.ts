import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { useEngineRig } from './support/turn-harness.js';
import { writeToolsFile } from './support/tools-file.js';
import { WsClient } from './support/ws-client.js';

/** A tool's `response_query` picks what the model reads of a JSON response. */
describe('tool responses picked by response_query', () => {
  const query = 'current_condition[0].{temp: temp_C, sky: weatherDesc[0].value}';
  const forecast = {
    current_condition: [{ temp_C: '21', weatherDesc: [{ value: 'Sunny' }], humidity: '40' }],
    weather: Array.from({ length: 3 }, (_, day) => ({
      day,
      hourly: Array.from({ length: 8 }, (_, h) => ({ h, tempC: 10 + h, chanceofrain: '0' })),
    })),
  };
  const rig = useEngineRig(
    (base) => ({
      LLM_MODEL: 'm',
      LLM_TOOL_RESULT_MAX_CHARS: '200',
      LLM_TOOLS_FILE: writeToolsFile(
        ['json', 'text', 'missing'].map((kind) => ({
          name: `weather_${kind}`,
          url: `${base}/${kind}/{city}`,
          method: 'GET',
          response_query: query,
        })),
      ),
    }),
    (req, res) => {
      if (req.path.startsWith('/json/'))
        return void res
          .writeHead(200, { 'Content-Type': 'application/json' })
          .end(JSON.stringify(forecast));
      if (req.path.startsWith('/missing/'))
        return void res
          .writeHead(404, { 'Content-Type': 'application/json' })
          .end('{"error":"unknown city"}');
      res.end('Paris: ☀️ +21°C');
    },
  );

  /** What the model reads for one call of `name`. */
  async function read(name: string): Promise<string> {
    rig.llm.reset();
    rig.llm.enqueue(
      sseStructuredCalls([{ id: 'call_1', name, arguments: { city: 'Paris' } }]),
      sseText(['ok']),
    );
    const ws = await WsClient.connect(rig.engine.wsUrl);
    try {
      await ws.turn('weather?');
    } finally {
      ws.close();
    }
    return rig.llm.requests[1]!.body.messages.find((m: any) => m.role === 'tool').content;
  }

  it('hands the model only what the query picks from a large JSON response', async () => {
    // The whole response is over LLM_TOOL_RESULT_MAX_CHARS: cut, it would lose the current weather's end.
    expect(JSON.stringify(forecast).length).toBeGreaterThan(200);
    expect(await read('weather_json')).toBe('{"temp":"21","sky":"Sunny"}');
  });

  it('leaves a body that is not JSON whole, and error responses unfiltered', async () => {
    expect(await read('weather_text')).toBe('Paris: ☀️ +21°C');
    expect(await read('weather_missing')).toBe(
      'Error: HTTP 404 Not Found — {"error":"unknown city"}',
    );
  });
});
