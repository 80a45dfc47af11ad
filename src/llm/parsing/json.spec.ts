import { parseJson, parseJsonExact } from './json.js';

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
