import { parseTraceparent, traceIdOf, traceparent, withTraceparent } from './trace-context.js';

describe('trace context', () => {
  it('makes a W3C traceparent with the trace id and a fresh, valid parent id per request', () => {
    const traceId = traceIdOf('0af76519-16cd-43dd-8448-eb211c80319c');
    expect(traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    const ids = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const header = traceparent(traceId);
      expect(header).toMatch(/^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-01$/);
      const parent = header.split('-')[2] ?? '';
      expect(parent).not.toBe('0000000000000000');
      ids.add(parent);
    }
    expect(ids.size).toBe(200);
  });

  it('keeps a traceparent the headers set already, and adds none without a trace', () => {
    const own = { TraceParent: '00-1-2-01' };
    expect(withTraceparent(own, 'a'.repeat(32))).toBe(own);
    expect(withTraceparent({ a: 'b' }, undefined)).toEqual({ a: 'b' });
    expect(withTraceparent({}, 'a'.repeat(32)).traceparent).toMatch(/^00-a{32}-[0-9a-f]{16}-01$/);
  });
});

describe('parseTraceparent', () => {
  const trace = '4bf92f3577b34da6a3ce929d0e0e4736';
  const span = '00f067aa0ba902b7';
  it('reads the span a W3C traceparent names', () => {
    expect(parseTraceparent(`00-${trace}-${span}-01`)).toEqual({ traceId: trace, spanId: span });
    expect(parseTraceparent(` 00-${trace}-${span}-00 `)).toEqual({ traceId: trace, spanId: span });
    // A later version may add fields after the flags.
    expect(parseTraceparent(`01-${trace}-${span}-01-what-comes`)).toEqual({
      traceId: trace,
      spanId: span,
    });
  });

  it('takes nothing else', () => {
    for (const header of [
      undefined,
      ['a', 'b'],
      '',
      `ff-${trace}-${span}-01`,
      `00-${trace}-${span}-01-extra`,
      `00-${'0'.repeat(32)}-${span}-01`,
      `00-${trace}-${'0'.repeat(16)}-01`,
      `00-${trace.toUpperCase()}-${span}-01`,
      `00-${trace}-${span}`,
    ])
      expect(parseTraceparent(header)).toBeUndefined();
  });
});

describe('traceparent under an exported span', () => {
  it('names the span, and says sampled or not as its trace is recorded or not', () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    expect(traceparent(traceId, { traceId, spanId: '00f067aa0ba902b7' })).toBe(
      `00-${traceId}-00f067aa0ba902b7-01`,
    );
    expect(traceparent(traceId, { traceId, spanId: '00f067aa0ba902b7', sampled: false })).toBe(
      `00-${traceId}-00f067aa0ba902b7-00`,
    );
  });
});
