import { Logger } from '@nestjs/common';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { sseText } from './support/fake-llm.js';
import { useDownPublisher } from './support/publisher.js';
import { writeToolsFile } from './support/tools-file.js';
import { offeredNames, useClientPerTest, useEngineRig, xmlCall } from './support/turn-harness.js';
import { until, untilAsync } from './support/waiting.js';

const SPEC = resolve('test/fixtures/openapi/orders.yaml');

/** With LLM_TOOLS_FILE_WATCH_SECS, an edited OpenAPI document is read again like the tools file. */
describe('OpenAPI documents watched for changes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'engine-openapi-'));
  const spec = join(dir, 'orders.yaml');
  copyFileSync(SPEC, spec);
  const rig = useEngineRig((base) => ({
    LLM_MODEL: 'm',
    LLM_TOOLS_FILE_WATCH_SECS: '0.1',
    LLM_TOOLS_FILE: writeToolsFile([
      { type: 'openapi', spec, operation: 'getOrder', base_url: base },
    ]),
  }));
  const client = useClientPerTest(rig);
  const described = async () => {
    rig.llm.reset();
    rig.llm.enqueue(sseText(['ok']));
    await client.ws.turn('hello', 10_000);
    return rig.llm.requests[0]!.body.tools[0].function.description as string;
  };

  it("offers the operation's new description from the next turn", async () => {
    expect(await described()).toMatch(/^Status of an order/);
    writeFileSync(
      spec,
      readFileSync(SPEC, 'utf8').replace(
        'summary: Status of an order',
        'summary: Where an order is',
      ),
    );
    await untilAsync(
      async () => (await described()).startsWith('Where an order is'),
      'the edited document',
    );
  });
});

/** A document at a URL that cannot be read when the engine starts: the tool waits, the engine does not. */
describe('OpenAPI documents at a URL that is down at start-up', () => {
  /** What the service publishes: first a document without the operation, then the real one. */
  let document = 'openapi: 3.0.3\ninfo: {title: Orders, version: "1"}\npaths: {}\n';
  let toolsFile = '';
  const publisher = useDownPublisher(() => document);
  const rig = useEngineRig((base) => ({
    LLM_MODEL: 'm',
    LLM_TOOL_BREAKER_COOLDOWN_SECS: '0.3',
    LLM_TOOLS_FILE: (toolsFile = writeToolsFile([
      { name: 'get_weather', url: `${base}/{city}`, method: 'GET' },
      {
        type: 'openapi',
        spec: publisher.url,
        operation: 'getOrder',
        base_url: base,
      },
      // One a search finds (`deferred`): read alone once its document can be, as the others.
      {
        type: 'openapi',
        spec: publisher.url,
        operation: 'cancelOrder',
        base_url: base,
        deferred: true,
      },
      { type: 'tool_search', name: 'find_tools' },
    ])),
  }));
  const client = useClientPerTest(rig);
  const offered = () => offeredNames(rig, client.ws);

  it('starts without the tool, and offers it once the document can be read', async () => {
    expect(await offered()).toEqual(['get_weather', 'find_tools']);
    const health = async () =>
      ((await (await fetch(`${rig.engine.httpUrl}/health`)).json()) as any).tools.unavailable;
    expect(await health()).toEqual(['getOrder', 'cancelOrder']);
    // A document that lacks the operation: the tool stays pending, and the error names the
    // tools file and the tool's place in it.
    const errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => {});
    try {
      publisher.up = true;
      await until(() => errors.mock.calls.length > 0, 'the wrong document read');
      expect(String(errors.mock.calls[0]![0])).toContain(
        `${resolve(toolsFile)}: tool #1: field 'operation': the spec has no operation "getOrder"`,
      );
    } finally {
      errors.mockRestore();
    }
    expect(await offered()).toEqual(['get_weather', 'find_tools']);
    document = readFileSync(SPEC, 'utf8');
    await untilAsync(async () => (await offered()).includes('getOrder'), 'the document read');
    expect(await health()).toEqual([]);
    const [, tool] = ((await (await fetch(`${rig.engine.httpUrl}/api/tools`)).json()) as any).tools;
    expect(tool).toEqual(expect.objectContaining({ type: 'openapi', operation: 'getOrder' }));
    const described = await (
      await fetch(`${rig.engine.httpUrl}/api/tools/getOrder/offered`)
    ).json();
    expect(described).toMatchObject({ description: expect.stringMatching(/^Status of an order/) });
  });
});

// An API keyed as its document's security says (OpenWeatherMap's appid in the query, an
// X-API-Key header): the entry gives the key, the engine puts it there.
describe('OpenAPI tools with an api_key', () => {
  const WEATHER = resolve('test/fixtures/openapi/weather.yaml');
  const rig = useEngineRig((base) => ({
    LLM_MODEL: 'm',
    TOOL_SECRET_WEATHER: 'k/7 9',
    LLM_TOOLS_FILE: writeToolsFile(
      ['getForecast', 'getAlerts'].map((operation) => ({
        type: 'openapi',
        spec: WEATHER,
        operation,
        base_url: `${base}/v2`,
        api_key: '${TOOL_SECRET_WEATHER}',
      })),
    ),
  }));
  const client = useClientPerTest(rig);

  it('sends the key where the security scheme says, filled in from its secret, and masks it in the result', async () => {
    rig.tools.respond((req, res) =>
      res.end(`${req.url} ${String(req.headers['x-api-key'] ?? '')}`),
    );
    rig.llm.enqueue(
      sseText([xmlCall('getForecast', { q: 'Rome' }), xmlCall('getAlerts', {})]),
      sseText(['Done.']),
    );
    await client.ws.turn('weather in Rome?');
    expect(rig.tools.requests.map((r) => [r.url, r.headers['x-api-key']])).toEqual([
      ['/v2/forecast?appid=k%2F7%209&q=Rome', undefined],
      ['/v2/alerts', 'k/7 9'],
    ]);
    const read = rig.llm.requests[1]!.body.messages.filter((m: any) => m.role === 'tool');
    expect(read.map((m: any) => m.content)).toEqual([
      '/v2/forecast?appid=[secret]&q=Rome ',
      '/v2/alerts [secret]',
    ]);
  });
});
