import { callOnce, useEngineRig } from './support/turn-harness.js';
import { writeToolsFile } from './support/tools-file.js';
import { WsClient } from './support/ws-client.js';

/**
 * A parameter's `default` (JSON Schema) is what the tool is sent when the model leaves the
 * argument out: a placeholder that needs it is filled, not refused.
 */
describe('parameters with a default', () => {
  const rig = useEngineRig(
    (toolsUrl) => ({
      LLM_MODEL: 'm',
      LLM_TOOLS_FILE: writeToolsFile([
        {
          name: 'forecast',
          parameters: {
            type: 'object',
            properties: {
              city: { type: 'string' },
              units: { type: 'string', enum: ['metric', 'imperial'], default: 'metric' },
              days: { type: 'integer', default: 3 },
              hourly: { type: 'boolean' },
              station: { type: 'string', nullable: true },
            },
            required: ['city'],
          },
          url: `${toolsUrl}/forecast/{city}/{units}`,
          method: 'GET',
        },
      ]),
    }),
    (req, res) => res.end(req.url),
  );

  it('sends the default of an argument the model left out, and the argument it gave', async () => {
    const ws = await WsClient.connect(rig.engine.wsUrl);
    expect((await callOnce(rig, ws, 'forecast', { city: 'Oslo' })).read).toBe(
      '/forecast/Oslo/metric?days=3',
    );
    expect(
      (await callOnce(rig, ws, 'forecast', { city: 'Oslo', units: 'imperial', days: 1 })).read,
    ).toBe('/forecast/Oslo/imperial?days=1');
    ws.close();
  }, 30_000);

  it('leaves out an optional argument the model sent as null, never sending "null"', async () => {
    const ws = await WsClient.connect(rig.engine.wsUrl);
    const nulls = { city: 'Oslo', units: null, days: null, hourly: null, station: null };
    expect((await callOnce(rig, ws, 'forecast', nulls)).read).toBe('/forecast/Oslo/metric?days=3');
    ws.close();
  }, 30_000);
});
