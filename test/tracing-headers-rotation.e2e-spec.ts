import { useBuiltEngines } from './support/built-engine.js';
import { FakeLlm, sseText } from './support/fake-llm.js';
import { OtlpCollector } from './support/otlp-collector.js';
import { secretFiles } from './support/secret-files.js';
import { until } from './support/waiting.js';
import { WsClient } from './support/ws-client.js';

const secret = secretFiles('engine-otlp-headers-');

/**
 * OTEL_EXPORTER_OTLP_HEADERS given as a file and watched (SECRET_FILES_WATCH_SECS): a collector's
 * key rotated in its Secret is sent with the next spans exported, with no restart.
 */
describe("the span collector's headers rotated in their file", () => {
  const llm = new FakeLlm();
  const collector = new OtlpCollector();
  const startEngine = useBuiltEngines();
  afterAll(async () => {
    await Promise.all([llm.stop(), collector.stop()]);
  });

  it('sends the new key with the spans exported after the change', async () => {
    const file = secret('otlp-headers', 'x-api-key=key-1,x-team=voice');
    const engine = await startEngine({
      LLM_BASE_URL: await llm.start(),
      LLM_MODEL: 'm',
      OTEL_EXPORTER_OTLP_ENDPOINT: await collector.start(),
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '20',
      OTEL_EXPORTER_OTLP_HEADERS_FILE: file,
      SECRET_FILES_WATCH_SECS: '0.2',
    });
    const ws = await WsClient.connect(engine.wsUrl);
    const keys = () => collector.requests.map((r) => r.headers['x-api-key']);
    llm.enqueue(sseText(['Hello.']));
    await ws.turn('Hi');
    await until(() => keys().length > 0, 'the first spans');
    expect(new Set(keys())).toEqual(new Set(['key-1']));

    secret('otlp-headers', 'x-api-key=key-2,x-team=voice');
    await until(
      () =>
        engine.output.includes(
          'OTEL_EXPORTER_OTLP_HEADERS changed in its file: sent with the next spans exported',
        ),
      'the file read again',
    );
    const before = collector.requests.length;
    llm.enqueue(sseText(['Hello again.']));
    await ws.turn('Hi again');
    await until(() => collector.requests.length > before, 'the next spans');
    expect(new Set(keys().slice(before))).toEqual(new Set(['key-2']));
    expect(engine.output).not.toContain('key-2');
    ws.close();
  }, 30_000);
});
