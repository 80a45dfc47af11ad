import { parseJson, parseJsonExact } from './json.js';
import fc from 'fast-check';

describe('parseJsonExact (a tool call arguments)', () => {
  it('keeps an integer too long for a JavaScript number as its digits', () => {
    const text = '{"order_id": 1790000000000000001, "debit": -98765432109876543210, "n": 3}';
    expect(parseJsonExact(text)).toEqual({
      order_id: '1790000000000000001',
      debit: '-98765432109876543210',
      n: 3,
    });
    // What JSON.parse would have sent the tool: another order.
    expect((parseJson(text) as { order_id: number }).order_id).toBe(1790000000000000000);
  });

  it('reads every other value as JSON.parse does', () => {
    const texts = [
      '{"max": 9007199254740991, "pi": 3.14159265358979323846, "big": 1e22, "neg": -0.5}',
      '{"text": "an id 12345678901234567890 in a string", "list": [1, 2.5, true, null]}',
      '[{"a": {"b": [1234567890123456]}}]',
      '"12345678901234567890"',
    ];
    for (const text of texts) expect(parseJsonExact(text)).toEqual(JSON.parse(text));
    expect(parseJsonExact('{"a": 12345678901234567890')).toBeUndefined();
    expect(parseJsonExact('not json')).toBeUndefined();
  });

  it('keeps the last of keys given twice, and __proto__ as a key of its own', () => {
    const value = parseJsonExact(
      '{"id": 1, "id": 12345678901234567890, "__proto__": {"admin": true}}',
    ) as Record<string, unknown>;
    expect(value.id).toBe('12345678901234567890');
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.hasOwn(value, '__proto__')).toBe(true);
    expect((value as { admin?: unknown }).admin).toBeUndefined();
  });
});

describe('parseJsonExact against JSON.parse, on any JSON', () => {
  /** `value` as parseJsonExact should read it: integers written past 2^53 as their digits. */
  const exact = (value: unknown): unknown => {
    if (typeof value === 'number')
      return Number.isInteger(value) && !Number.isSafeInteger(value) && !/e/i.test(String(value))
        ? String(value)
        : value;
    if (Array.isArray(value)) return value.map(exact);
    if (typeof value === 'object' && value !== null)
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, exact(v)]));
    return value;
  };

  it('reads what JSON.parse reads, but the long integers', () => {
    const long = fc.bigInt({ min: -(10n ** 25n), max: 10n ** 25n }).map(Number);
    const value = fc.letrec((tie) => ({
      json: fc.oneof(
        { depthSize: 'small' },
        fc.jsonValue({ maxDepth: 1 }),
        long,
        fc.array(tie('json'), { maxLength: 4 }),
        fc.dictionary(fc.string(), tie('json'), { maxKeys: 4 }),
      ),
    })).json;
    fc.assert(
      fc.property(value, (v) => {
        const text = JSON.stringify(v);
        expect(parseJsonExact(text)).toEqual(exact(JSON.parse(text)));
      }),
      { numRuns: 2000 },
    );
  });
});
