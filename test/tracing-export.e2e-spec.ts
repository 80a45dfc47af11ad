import { Logger } from '@nestjs/common';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { Engine } from './support/engine.js';
import { FakeLlm, sseStructuredCalls, sseTextWithUsage } from './support/fake-llm.js';
import { OtlpCollector } from './support/otlp-collector.js';
import { RecordingServer } from './support/recording-server.js';
import { useClientPerTest, useEngineRig } from './support/turn-harness.js';
import { weatherTool, writeToolsFile } from './support/tools-file.js';
import { until } from './support/waiting.js';
import { REFUSED_ORIGIN } from './support/refused.js';
import { WsClient } from './support/ws-client.js';

describe('spans exported in OTLP/HTTP protobuf (the default protocol)', () => {
  const collector = new OtlpCollector();
  let collectorUrl = '';
  beforeAll(async () => {
    collectorUrl = await collector.start();
  });
  afterAll(() => collector.stop());
  const rig = useEngineRig(() => ({
    LLM_MODEL: 'm',
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${collectorUrl}/otlp/traces`,
    OTEL_BSP_SCHEDULE_DELAY: '20',
  }));
  const client = useClientPerTest(rig);

  it('posts protobuf to the traces endpoint as given', async () => {
    rig.llm.enqueue(sseTextWithUsage(['Hi.'], 3, 1));
    await client.ws.turn('hello');
    await until(() => collector.requests.length > 0, 'an export', 10_000);
    const [request] = collector.requests;
    expect(request).toMatchObject({
      path: '/otlp/traces',
      headers: { 'content-type': 'application/x-protobuf' },
    });
    // Protobuf strings are their UTF-8 bytes.
    for (const text of ['agent-engine', 'turn', 'chat m', 'gen_ai.operation.name'])
      expect(request!.body).toContain(text);
  });
});

describe('a collector that cannot be reached', () => {
  // Port 1: a port freed after a probe may be taken by a file running beside (its server then
  // answered 404).
  const rig = useEngineRig(() => ({
    LLM_MODEL: 'm',
    OTEL_EXPORTER_OTLP_ENDPOINT: REFUSED_ORIGIN,
    OTEL_BSP_SCHEDULE_DELAY: '20',
    // Read by OpenTelemetry's exporter itself: it gives up retrying after this long.
    OTEL_EXPORTER_OTLP_TIMEOUT: '1000',
  }));
  const client = useClientPerTest(rig);

  it('costs the turns nothing, and the log says why no span arrives', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => {});
    try {
      rig.llm.enqueue(sseTextWithUsage(['Hi.'], 3, 1));
      const turn = await client.ws.turn('hello');
      expect(turn.at(-1)).toMatchObject({ type: 'assistant_end', text: 'Hi.' });
      const fromTracing = () =>
        warn.mock.calls
          .filter((_, i) => (warn.mock.contexts[i] as { context?: string }).context === 'Tracing')
          .map((c) => String(c[0]));
      await until(() => fromTracing().length > 0, 'a warning', 10_000);
      expect(fromTracing()).toEqual([
        expect.stringMatching(
          /^spans could not be exported: connect ECONNREFUSED 127\.0\.0\.1:\d+$/,
        ),
      ]);
    } finally {
      warn.mockRestore();
    }
  });
});

describe('spans waiting when the engine stops', () => {
  const collector = new OtlpCollector();
  const llm = new FakeLlm();
  afterAll(async () => {
    await Promise.all([collector.stop(), llm.stop()]);
  });

  it('are sent before it exits, however long their batch had to wait', async () => {
    const engine = await Engine.start({
      LLM_BASE_URL: await llm.start(),
      LLM_MODEL: 'm',
      OTEL_EXPORTER_OTLP_ENDPOINT: await collector.start(),
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '600000',
    });
    try {
      const ws = await WsClient.connect(engine.wsUrl);
      llm.enqueue(sseTextWithUsage(['Hi.'], 3, 1));
      await ws.turn('hello');
      ws.close();
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(collector.requests).toEqual([]);
    } finally {
      await engine.stop();
    }
    expect(
      collector
        .spans()
        .map((s) => s.name)
        .sort(),
    ).toEqual(['chat m', 'turn']);
  });
});

describe('spans waiting when the engine stops, and a collector that does not answer', () => {
  const llm = new FakeLlm();
  // Takes connections and never answers (a frozen collector, a network dropping packets).
  const held: Socket[] = [];
  const silent = createServer((socket) => held.push(socket));
  afterAll(async () => {
    for (const socket of held) socket.destroy();
    await Promise.all([llm.stop(), new Promise((resolve) => silent.close(resolve))]);
  });

  it('stops within 5 s of waiting for it, and says the spans were not sent', async () => {
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const engine = await Engine.start({
      LLM_BASE_URL: await llm.start(),
      LLM_MODEL: 'm',
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`,
      OTEL_BSP_SCHEDULE_DELAY: '600000',
    });
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => {});
    try {
      const ws = await WsClient.connect(engine.wsUrl);
      llm.enqueue(sseTextWithUsage(['Hi.'], 3, 1));
      await ws.turn('hello');
      ws.close();
      const started = Date.now();
      await engine.stop();
      // The exporter's own wait is 10 s: the engine gives the collector 5.
      expect(Date.now() - started).toBeLessThan(8500);
      expect(held.length).toBeGreaterThan(0);
      expect(warn.mock.calls.map((c) => String(c[0]))).toContain(
        'the last spans were not sent to the collector: no answer within 5s',
      );
    } finally {
      warn.mockRestore();
      await engine.stop();
    }
  }, 20_000);
});

describe('turns left out of tracing (OTEL_TRACES_SAMPLER)', () => {
  const collector = new OtlpCollector();
  const llm = new FakeLlm();
  const tools = new RecordingServer();
  afterAll(async () => {
    await Promise.all([collector.stop(), llm.stop(), tools.stop()]);
  });

  it('makes no span of them, and tells the servers they go unrecorded', async () => {
    const engine = await Engine.start({
      LLM_BASE_URL: await llm.start(),
      LLM_MODEL: 'm',
      LLM_TOOLS_FILE: writeToolsFile([weatherTool(await tools.start())]),
      OTEL_EXPORTER_OTLP_ENDPOINT: await collector.start(),
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_TRACES_SAMPLER: 'traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0',
    });
    try {
      const ws = await WsClient.connect(engine.wsUrl);
      llm.enqueue(
        sseStructuredCalls([{ id: 'c1', name: 'get_weather', arguments: { city: 'Rome' } }]),
        sseTextWithUsage(['Sunny.'], 3, 1),
      );
      await ws.turn('weather?', 10_000);
      ws.close();
    } finally {
      await engine.stop(); // sends whatever spans wait
    }
    expect(collector.spans()).toEqual([]);
    const flags = [...llm.requests, ...tools.requests].map((r) =>
      String(r.headers.traceparent).slice(-3),
    );
    expect(flags).toEqual(['-00', '-00', '-00']);
  });
});
