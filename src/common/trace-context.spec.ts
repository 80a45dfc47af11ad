import { traceIdOf, traceparent, withTraceparent } from './trace-context.js';

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
