import { argumentProblem } from './argument-check.js';

const schema = {
  type: 'object',
  properties: {
    city: { type: 'string' },
    days: { type: 'integer', minimum: 1 },
    unit: { type: 'string', enum: ['c', 'f'] },
  },
  required: ['city'],
};

describe('argumentProblem', () => {
  it('lets valid arguments through', () => {
    expect(argumentProblem(schema, { city: 'Rome', days: 3 })).toBeUndefined();
  });

  it('names a missing required argument, a value out of range, a value not allowed', () => {
    expect(argumentProblem(schema, { town: 'Rome' })).toBe(
      "invalid arguments: arguments must have required property 'city'",
    );
    expect(argumentProblem(schema, { city: 'Rome', days: 0 })).toBe(
      'invalid arguments: arguments/days must be >= 1',
    );
    expect(argumentProblem(schema, { city: 'Rome', unit: 'k' })).toBe(
      'invalid arguments: arguments/unit must be equal to one of the allowed values',
    );
  });

  it("takes a value of an enum written in another case, with spaces for _ or -, as the enum's", () => {
    const booking = {
      type: 'object',
      properties: {
        meal: { type: 'string', enum: ['lunch', 'dinner'] },
        seating: { enum: ['dine_in', 'take-away'] },
        extras: { type: 'array', items: { enum: ['High chair', 'Café table'] } },
        size: { enum: ['S', 's', 'M'] },
        grade: { enum: ['A+', '-1'] },
      },
    };
    const args: Record<string, unknown> = {
      meal: ' Dinner ',
      seating: 'Take Away',
      extras: ['high-chair', 'CAFE TABLE'],
      size: 'm',
    };
    expect(argumentProblem(booking, args)).toBeUndefined();
    expect(args).toEqual({
      meal: 'dinner',
      seating: 'take-away',
      extras: ['High chair', 'Café table'],
      size: 'M',
    });
    expect(argumentProblem(booking, { seating: 'dine in' })).toBeUndefined();
    // Two values the same but for case, or punctuation that makes another value: not guessed.
    const notGuessed = 'must be equal to one of the allowed values';
    expect(argumentProblem(booking, { size: 'S ' })).toMatch(notGuessed);
    expect(argumentProblem(booking, { grade: 'A' })).toMatch(notGuessed);
    expect(argumentProblem(booking, { grade: '1' })).toMatch(notGuessed);
    expect(argumentProblem(booking, { meal: 'brunch' })).toMatch(notGuessed);
  });

  it('refuses an integer past 2^53, which has lost its last digits, where the schema wants an integer', () => {
    const ids = {
      type: 'object',
      properties: {
        order_id: { type: 'integer' },
        maybe: { type: ['integer', 'null'] },
        lines: { type: 'array', items: { type: 'object', properties: { sku: { type: 'int64' } } } },
        weight: { type: 'number' },
        amount: { type: ['integer', 'number'] },
      },
    };
    const tooLong =
      'must be at most 9007199254740991 in size: a longer integer loses its last digits here (the tool should declare this parameter a string)';
    expect(argumentProblem(ids, JSON.parse('{"order_id": 12345678901234567890}'))).toBe(
      `invalid arguments: arguments/order_id ${tooLong}`,
    );
    // Written as text, the value is made a number by the coercion first: refused the same way.
    expect(argumentProblem(ids, { order_id: '12345678901234567890' })).toBe(
      `invalid arguments: arguments/order_id ${tooLong}`,
    );
    expect(argumentProblem(ids, { maybe: 2 ** 60 })).toBe(
      `invalid arguments: arguments/maybe ${tooLong}`,
    );
    expect(argumentProblem(ids, { lines: [{ sku: 1 }, { sku: 2 ** 54 }] })).toBe(
      `invalid arguments: arguments/lines/1/sku ${tooLong}`,
    );
    // Exact integers pass; so does a large number where the schema wants a number.
    expect(
      argumentProblem(ids, { order_id: Number.MAX_SAFE_INTEGER, weight: 1e22 }),
    ).toBeUndefined();
    // A fraction where the schema takes an integer or a number is no integer that lost digits.
    expect(argumentProblem(ids, { amount: 2.5 })).toBeUndefined();
    // A value written in the schema (a const, an enum) that looks like a schema is left as it is.
    const shape = { type: 'object', properties: { kind: { const: { type: 'integer' } } } };
    expect(argumentProblem(shape, { kind: { type: 'integer' } })).toBeUndefined();
  });

  it('refuses keys that would pollute prototypes in a JavaScript backend, at any depth', () => {
    const proto: Record<string, unknown> = { city: 'Rome' };
    Object.defineProperty(proto, '__proto__', { value: { admin: true }, enumerable: true });
    const reason = 'is not allowed (it would change object prototypes in a JavaScript backend)';
    expect(argumentProblem(schema, proto)).toBe(`invalid arguments: arguments/__proto__ ${reason}`);
    expect(
      argumentProblem(undefined, JSON.parse('{"q": [{"a": 1}, {"__proto__": {"x": 1}}]}')),
    ).toBe(`invalid arguments: arguments/q/1/__proto__ ${reason}`);
    expect(
      argumentProblem(undefined, { city: 'Rome', constructor: { prototype: { admin: true } } }),
    ).toBe(`invalid arguments: arguments/constructor ${reason}`);
    // A parameter merely named so, with an ordinary value, is an ordinary argument.
    expect(
      argumentProblem(undefined, { constructor: 'Ferrari', prototype: { v: 2 } }),
    ).toBeUndefined();
    expect(argumentProblem(undefined, { constructor: { make: 'Ferrari' } })).toBeUndefined();
  });

  it('coerces values whose type is clear, in place', () => {
    const args: Record<string, unknown> = { city: 42, days: '3' };
    expect(argumentProblem(schema, args)).toBeUndefined();
    expect(args).toEqual({ city: '42', days: 3 });
    expect(argumentProblem(schema, { city: 'Rome', days: 'three' })).toBe(
      'invalid arguments: arguments/days must be integer',
    );
  });

  it('takes one value for a list as a list of it, and a list of one value for a value', () => {
    const search = {
      type: 'object',
      properties: {
        city: { type: 'string' },
        subtype: { type: 'array', items: { type: 'string', enum: ['duplex', 'condo'] } },
        ids: { type: 'array', items: { type: 'integer' } },
      },
    };
    // As models write them: one item without its brackets, a value in brackets.
    const args: Record<string, unknown> = { city: ['Rome'], subtype: 'duplex', ids: '7' };
    expect(argumentProblem(search, args)).toBeUndefined();
    expect(args).toEqual({ city: 'Rome', subtype: ['duplex'], ids: [7] });
    // Not a list of several values for one, nor one that is not an item.
    expect(argumentProblem(search, { city: ['Rome', 'Oslo'] })).toBe(
      'invalid arguments: arguments/city must be string',
    );
    expect(argumentProblem(search, { subtype: 'villa' })).toMatch(
      /^invalid arguments: arguments\/subtype\/0 must be equal to one of the allowed values/,
    );
  });

  it('names an argument a schema without additional properties does not take', () => {
    const closed = {
      type: 'object',
      properties: { q: { type: 'string' } },
      additionalProperties: false,
    };
    expect(argumentProblem(closed, { q: 'pizza', limit: 3 })).toBe(
      "invalid arguments: arguments must NOT have additional properties: 'limit'",
    );
  });

  it('takes an optional argument sent as null as absent, and leaves it out, but not a required one', () => {
    const args = { city: 'Rome', unit: null };
    expect(argumentProblem(schema, args)).toBeUndefined();
    expect(args).toEqual({ city: 'Rome' });
    expect(argumentProblem(schema, { city: null })).toBe(
      'invalid arguments: arguments/city must not be null',
    );
    // Null where the schema allows it, or names no type for the argument, is a value.
    const nullable = {
      type: 'object',
      properties: { note: { type: ['string', 'null'] } },
      required: ['note', 'tag'],
    };
    const given = { note: null, tag: null };
    expect(argumentProblem(nullable, given)).toBeUndefined();
    expect(given).toEqual({ note: null, tag: null });
    // OpenAPI 3.0 writes it `nullable`; JSON Schema also as an alternative.
    const openApi = {
      type: 'object',
      properties: {
        assignee: { type: 'string', nullable: true },
        milestone: { anyOf: [{ type: 'integer' }, { type: 'null' }] },
        state: { type: 'string' },
      },
      required: ['assignee'],
    };
    const sent = { assignee: null, milestone: null, state: null };
    expect(argumentProblem(openApi, sent)).toBeUndefined();
    expect(sent).toEqual({ assignee: null, milestone: null });
  });

  it("fills in a parameter's default where the model left the argument out or sent null, nested too", () => {
    const withDefaults = {
      type: 'object',
      properties: {
        city: { type: 'string' },
        units: { type: 'string', default: 'metric' },
        days: { type: 'integer', default: 1 },
        filter: {
          type: 'object',
          properties: { status: { type: 'string', default: 'open' }, mine: { type: 'boolean' } },
        },
      },
      required: ['city'],
    };
    const args: Record<string, unknown> = { city: 'Oslo', days: null, filter: { mine: true } };
    expect(argumentProblem(withDefaults, args)).toBeUndefined();
    expect(args).toEqual({
      city: 'Oslo',
      units: 'metric',
      days: 1,
      filter: { mine: true, status: 'open' },
    });
    const given: Record<string, unknown> = { city: 'Rome', units: 'imperial', days: 3 };
    expect(argumentProblem(withDefaults, given)).toBeUndefined();
    expect(given).toEqual({ city: 'Rome', units: 'imperial', days: 3 });
    // Each call gets a default of its own, never one another call changed.
    const first: Record<string, unknown> = { city: 'a' };
    const list = {
      type: 'object',
      properties: { city: {}, tags: { type: 'array', default: ['x'] } },
    };
    argumentProblem(list, first);
    (first.tags as string[]).push('changed');
    const second: Record<string, unknown> = { city: 'b' };
    argumentProblem(list, second);
    expect(second.tags).toEqual(['x']);
  });

  it("reads the type names Qwen parsers know (float, dict) as JSON Schema's", () => {
    const qwen = { type: 'object', properties: { x: { type: 'float' }, o: { type: 'dict' } } };
    expect(argumentProblem(qwen, { x: 1.5, o: { a: 1 } })).toBeUndefined();
    expect(argumentProblem(qwen, { x: 'no' })).toBe(
      'invalid arguments: arguments/x must be number',
    );
  });

  it('checks every tool whose schema has the same $id (a tool set replaced, tools made from one template)', () => {
    const schema = () => ({
      $id: 'https://example.com/weather.json',
      type: 'object',
      properties: { days: { type: 'integer' } },
      required: ['days'],
    });
    for (let i = 0; i < 3; i++)
      expect(argumentProblem(schema(), {})).toBe(
        "invalid arguments: arguments must have required property 'days'",
      );
  });

  it('does not check against a schema it cannot compile, nor without one', () => {
    expect(
      argumentProblem({ type: 'object', properties: { a: { $ref: '#/nowhere' } } }, { a: 1 }),
    ).toBeUndefined();
    expect(argumentProblem(undefined, { anything: true })).toBeUndefined();
  });

  it("keeps a null as null where the schema is Pydantic's Optional (anyOf with null), nested too", () => {
    const optional = (s: object) => ({ anyOf: [s, { type: 'null' }], default: null });
    const pydantic = {
      type: 'object',
      properties: {
        guest: {
          type: 'object',
          properties: { name: { type: 'string' }, phone: optional({ type: 'string' }) },
        },
        party_size: { type: 'integer' },
        discount: optional({ type: 'integer' }),
      },
      required: ['guest', 'party_size'],
    };
    const args = { guest: { name: 'Ada', phone: null }, party_size: '4', discount: null };
    expect(argumentProblem(pydantic, args)).toBeUndefined();
    expect(args).toEqual({ guest: { name: 'Ada', phone: null }, party_size: 4, discount: null });
  });

  it('leaves out an optional null at any depth, arrays of objects too, and keeps one the schema takes', () => {
    const nested = {
      type: 'object',
      properties: {
        guest: {
          type: 'object',
          properties: {
            name: { type: 'string' },
            phone: { type: 'string' },
            note: { type: ['string', 'null'] },
          },
          required: ['name'],
        },
        rooms: {
          type: 'array',
          items: { type: 'object', properties: { beds: { type: 'integer' } } },
        },
      },
    };
    const args = {
      guest: { name: 'Ada', phone: null, note: null },
      rooms: [{ beds: null }, { beds: '2' }],
    };
    expect(argumentProblem(nested, args)).toBeUndefined();
    expect(args).toEqual({ guest: { name: 'Ada', note: null }, rooms: [{}, { beds: 2 }] });
    // A required one is refused, where it is (coerced, it would be sent as "").
    expect(argumentProblem(nested, { guest: { name: null } })).toBe(
      'invalid arguments: arguments/guest/name must not be null',
    );
  });
});
