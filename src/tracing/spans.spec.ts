import { complaintText, Spans } from './spans.js';
import { parseEnv } from '../config/env.js';

describe('Spans', () => {
  it('makes none when no collector is set', async () => {
    const spans = await Spans.load(parseEnv({}).tracing);
    expect(spans.enabled).toBe(false);
    expect(spans.root('turn', 'a'.repeat(32), {})).toBeUndefined();
    expect(spans.child('chat', { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16) }, {})).toBe(
      undefined,
    );
  });

  it('gives a root span the trace id asked for, and its children that trace and it as parent', async () => {
    const spans = await Spans.load(
      parseEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' }).tracing,
    );
    const traceId = '0f8e4c2a9b7d4e1f8a6c3b5d7e9f1a2b';
    const root = spans.root('turn', traceId, {})!;
    expect(root.ref.traceId).toBe(traceId);
    const child = spans.child('chat', root.ref, {})!;
    expect(child.ref.traceId).toBe(traceId);
    expect(child.ref.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(child.ref.spanId).not.toBe(root.ref.spanId);
    // The next root span is a trace of its own.
    expect(spans.root('turn', 'c'.repeat(32), {})!.ref.traceId).toBe('c'.repeat(32));
    await spans.shutdown();
  });
});

describe('complaintText', () => {
  it('says an export failure by its message, not its JSON and stack', () => {
    const error = Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:4318'), {
      code: 'ECONNREFUSED',
    });
    const json = JSON.stringify({
      stack: error.stack,
      message: error.message,
      code: 'ECONNREFUSED',
    });
    expect(complaintText(json)).toBe(
      'spans could not be exported: connect ECONNREFUSED 10.0.0.1:4318',
    );
    expect(complaintText('Dropped 3 spans because maxQueueSize reached', [])).toBe(
      'Dropped 3 spans because maxQueueSize reached',
    );
  });
});
