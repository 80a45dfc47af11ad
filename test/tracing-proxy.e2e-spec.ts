import { readFileSync } from 'node:fs';
import type { TLSSocket } from 'node:tls';
import { EgressProxy } from './support/egress-proxy.js';
import { sseText } from './support/fake-llm.js';
import { OtlpCollector } from './support/otlp-collector.js';
import { testTls } from './support/tls.js';
import { useClientPerTest, useEngineRig } from './support/turn-harness.js';
import { until } from './support/waiting.js';

const TLS_DIR = 'test/fixtures/tls';

/**
 * Spans exported through the egress proxy (EGRESS_PROXY) to a collector of the company's own CA
 * that checks its callers' certificates: OTEL_EXPORTER_OTLP_CERTIFICATE, _CLIENT_CERTIFICATE and
 * _CLIENT_KEY apply inside the proxy's tunnel as they do without one.
 */
describe('spans through the egress proxy to a collector with mutual TLS', () => {
  const collector = new OtlpCollector({
    ...testTls(),
    ca: readFileSync(`${TLS_DIR}/client-ca.pem`),
    requestCert: true,
    rejectUnauthorized: true,
  });
  const proxy = new EgressProxy();
  const callers: string[] = [];
  const urls = { collector: '', proxy: '' };
  beforeAll(async () => {
    urls.collector = (await collector.start()).replace('127.0.0.1', 'localhost');
    urls.proxy = await proxy.start();
    collector.respond((_req, res) => {
      callers.push(String((res.socket as TLSSocket).getPeerCertificate().subject?.CN));
      res.setHeader('Content-Type', 'application/json');
      res.end('{}');
    });
  });
  afterAll(async () => {
    await collector.stop();
    await proxy.stop();
  });
  const rig = useEngineRig(() => ({
    LLM_MODEL: 'm',
    OTEL_EXPORTER_OTLP_ENDPOINT: urls.collector,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '20',
    OTEL_EXPORTER_OTLP_CERTIFICATE: `${TLS_DIR}/ca.pem`,
    OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE: `${TLS_DIR}/client.pem`,
    OTEL_EXPORTER_OTLP_CLIENT_KEY: `${TLS_DIR}/client.key`,
    EGRESS_PROXY: urls.proxy,
    // The LLM server (127.0.0.1) directly; the collector (localhost) through the proxy.
    EGRESS_NO_PROXY: '127.0.0.0/8',
  }));
  const client = useClientPerTest(rig);

  it("trusts the collector's CA and shows the client certificate, in the tunnel", async () => {
    rig.llm.enqueue(sseText(['Hi.']));
    await client.ws.turn('hello');
    await until(() => collector.spans().some((s) => s.name === 'turn'), 'the turn span', 10_000);
    expect(callers[0]).toBe('voice-agent');
    expect(proxy.targets).toContain(`CONNECT localhost:${new URL(urls.collector).port}`);
  });
});
