import { readFileSync } from 'node:fs';
import { EnvError, parseEnv } from './env.js';

const tracing = (raw: Record<string, string>) => parseEnv(raw).tracing;
const refusal = (raw: Record<string, string>) => {
  try {
    parseEnv(raw);
  } catch (error) {
    expect(error).toBeInstanceOf(EnvError);
    return (error as Error).message;
  }
  throw new Error('accepted');
};

describe('OTEL_* (span export)', () => {
  it('exports nothing unless a collector is named', () => {
    expect(tracing({})).toEqual({
      url: '',
      protocol: 'http/protobuf',
      headers: {},
      serviceName: 'agent-engine',
      resourceAttributes: {},
      scheduleDelayMs: 5000,
      sampleRatio: 1,
      tls: {},
    });
  });

  it('reads the PEM files of the collector CA and client certificate, the traces form first', () => {
    const { tls } = tracing({
      OTEL_EXPORTER_OTLP_CERTIFICATE: 'test/fixtures/tls/server.pem',
      OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE: 'test/fixtures/tls/ca.pem',
      OTEL_EXPORTER_OTLP_CLIENT_KEY: 'test/fixtures/tls/client.key',
    });
    expect(tls.ca?.toString()).toBe(readFileSync('test/fixtures/tls/ca.pem', 'utf8'));
    expect(tls.key?.toString()).toBe(readFileSync('test/fixtures/tls/client.key', 'utf8'));
    expect(tls.cert).toBeUndefined();
    expect(() => tracing({ OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE: '/no/such.pem' })).toThrow(
      'OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE="/no/such.pem" cannot be read (ENOENT)',
    );
  });

  it('adds /v1/traces to OTEL_EXPORTER_OTLP_ENDPOINT, takes the traces endpoint as it is, and OTEL_SDK_DISABLED wins', () => {
    expect(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).url).toBe(
      'http://collector:4318/v1/traces',
    );
    expect(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://gw.example/otlp' }).url).toBe(
      'https://gw.example/otlp/v1/traces',
    );
    expect(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://gw.example/otlp?tenant=a' }).url).toBe(
      'https://gw.example/otlp/v1/traces?tenant=a',
    );
    expect(
      tracing({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://tempo:4318/v1/traces',
      }).url,
    ).toBe('http://tempo:4318/v1/traces');
    expect(
      tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' })
        .url,
    ).toBe('');
  });

  it('reads headers and resource attributes as key=value lists, percent-decoded', () => {
    const settings = tracing({
      OTEL_EXPORTER_OTLP_HEADERS: 'x-honeycomb-team=abc%2Fdef, x-team = voice ,',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod,k8s.pod.name=engine-7d9',
      OTEL_SERVICE_NAME: 'front-desk',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '200',
    });
    expect(settings).toMatchObject({
      headers: { 'x-honeycomb-team': 'abc/def', 'x-team': 'voice' },
      resourceAttributes: { 'deployment.environment': 'prod', 'k8s.pod.name': 'engine-7d9' },
      serviceName: 'front-desk',
      protocol: 'http/json',
      scheduleDelayMs: 200,
    });
  });

  it('traces the share of turns OTEL_TRACES_SAMPLER says', () => {
    const ratio = (raw: Record<string, string>) => tracing(raw).sampleRatio;
    expect(ratio({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' })).toBe(
      0.25,
    );
    expect(
      ratio({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '.1' }),
    ).toBe(0.1);
    expect(ratio({ OTEL_TRACES_SAMPLER: 'traceidratio' })).toBe(1);
    expect(ratio({ OTEL_TRACES_SAMPLER: 'always_off', OTEL_TRACES_SAMPLER_ARG: '0.5' })).toBe(0);
    expect(ratio({ OTEL_TRACES_SAMPLER: 'always_on', OTEL_TRACES_SAMPLER_ARG: '0.5' })).toBe(1);
    expect(refusal({ OTEL_TRACES_SAMPLER: 'jaeger_remote' })).toMatch(/^OTEL_TRACES_SAMPLER=/);
    for (const arg of ['1.5', '-0.1', 'ten', '10%'])
      expect(
        refusal({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: arg }),
      ).toMatch(/^OTEL_TRACES_SAMPLER_ARG=.*from 0 to 1/);
  });

  it('stops start-up on a bad value, naming the variable and never a header’s value', () => {
    expect(refusal({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toMatch(
      /^OTEL_EXPORTER_OTLP_PROTOCOL=.*http\/protobuf.*http\/json/,
    );
    expect(refusal({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4317' })).toMatch(
      /^OTEL_EXPORTER_OTLP_ENDPOINT=/,
    );
    expect(refusal({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/v1/traces' })).toContain(
      'without /v1/traces',
    );
    for (const headers of ['api-key:hunter2', 'bad key=hunter2', 'k=hunter2%zz', 'k=hunter2%0A'])
      expect(refusal({ OTEL_EXPORTER_OTLP_HEADERS: headers })).toMatch(
        /^OTEL_EXPORTER_OTLP_HEADERS is invalid: (?!.*hunter2)/,
      );
    expect(refusal({ OTEL_RESOURCE_ATTRIBUTES: 'a b=c' })).toMatch(
      /^OTEL_RESOURCE_ATTRIBUTES is invalid/,
    );
    expect(refusal({ OTEL_BSP_SCHEDULE_DELAY: '-1' })).toMatch(/^OTEL_BSP_SCHEDULE_DELAY=/);
  });
});
