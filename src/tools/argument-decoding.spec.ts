import { argumentProblem } from './argument-check.js';

const order = {
  type: 'object',
  properties: {
    items: {
      type: 'array',
      items: {
        type: 'object',
        properties: { name: { type: 'string' }, qty: { type: 'integer' } },
        required: ['name'],
      },
    },
    tags: { type: 'array', items: { type: 'string' } },
    address: { $ref: '#/$defs/Address' },
    gift: { type: 'boolean' },
    note: { type: 'string' },
    extra: { anyOf: [{ type: 'object' }, { type: 'string' }] },
    options: { type: 'dict' },
  },
  required: ['items'],
  $defs: {
    Address: {
      anyOf: [
        { type: 'object', properties: { city: { type: 'string' }, zip: { type: 'integer' } } },
        { type: 'null' },
      ],
    },
  },
};

describe('arguments written as their text', () => {
  it('become the object, the list or the boolean their schema takes, at any depth', () => {
    const args: Record<string, unknown> = {
      items: '[{"name": "milk", "qty": "2"}, {"name": "bread"}]',
      tags: " ['fresh', 'organic'] ",
      address: '{"city": "Rome", "zip": "00184"}',
      gift: 'True',
      options: "{'wrap': True}",
    };
    expect(argumentProblem(order, args)).toBeUndefined();
    expect(args).toEqual({
      items: [{ name: 'milk', qty: 2 }, { name: 'bread' }],
      tags: ['fresh', 'organic'],
      address: { city: 'Rome', zip: 184 },
      gift: true,
      options: { wrap: true },
    });
    const nested: Record<string, unknown> = { items: ['{"name": "eggs", "qty": 12}'] };
    expect(argumentProblem(order, nested)).toBeUndefined();
    expect(nested).toEqual({ items: [{ name: 'eggs', qty: 12 }] });
  });

  it('leave a string parameter, or one that may be a string, as the model wrote it', () => {
    const args: Record<string, unknown> = {
      items: [],
      note: '{"ring": "twice"}',
      extra: '{"a": 1}',
    };
    expect(argumentProblem(order, args)).toBeUndefined();
    expect(args).toEqual({ items: [], note: '{"ring": "twice"}', extra: '{"a": 1}' });
  });

  it('are refused as before when the text is not the type asked for', () => {
    // A list where an object is asked, text that is not JSON, a JSON string of the wrong shape.
    expect(argumentProblem(order, { items: [], address: '["Rome"]' })).toMatch(
      'invalid arguments: arguments/address must be object',
    );
    expect(argumentProblem(order, { items: '[{"name": "milk"' })).toBe(
      'invalid arguments: arguments/items/0 must be object',
    );
    expect(argumentProblem(order, { items: [], gift: 'yes please' })).toBe(
      'invalid arguments: arguments/gift must be boolean',
    );
    expect(argumentProblem(order, { items: '[{"qty": 1}]' })).toBe(
      "invalid arguments: arguments/items/0 must have required property 'name'",
    );
  });

  it('are checked for keys that would pollute prototypes once decoded', () => {
    expect(argumentProblem(order, { items: [], address: '{"__proto__": {"admin": true}}' })).toBe(
      'invalid arguments: arguments/address/__proto__ is not allowed (it would change object prototypes in a JavaScript backend)',
    );
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it("take an argument's name written in another case or joined another way as the parameter's", () => {
    const args: Record<string, unknown> = { Items: [], Note: 'ring twice', GIFT: 'true' };
    expect(argumentProblem(order, args)).toBeUndefined();
    expect(args).toEqual({ items: [], note: 'ring twice', gift: true });
    const booking = {
      type: 'object',
      properties: { city_name: { type: 'string' }, party_size: { type: 'integer' } },
      required: ['city_name'],
      additionalProperties: false,
    };
    const written: Record<string, unknown> = { cityName: 'Rome', 'party-size': '4' };
    expect(argumentProblem(booking, written)).toBeUndefined();
    expect(written).toEqual({ city_name: 'Rome', party_size: 4 });
    // Given both ways, or matching no parameter: as written (refused here).
    expect(argumentProblem(booking, { city_name: 'Rome', cityName: 'Milan' })).toBe(
      "invalid arguments: arguments must NOT have additional properties: 'cityName'",
    );
    expect(argumentProblem(booking, { town: 'Rome' })).toBe(
      "invalid arguments: arguments must have required property 'city_name'",
    );
  });

  it('take null written as a word as null where the parameter takes no string', () => {
    const args: Record<string, unknown> = { items: [], gift: 'None', address: 'null' };
    expect(argumentProblem(order, args)).toBeUndefined();
    // Optional, and taking no null: absent (the address may be null: null).
    expect(args).toEqual({ items: [], address: null });
    expect(argumentProblem(order, { items: 'none' })).toBe(
      'invalid arguments: arguments/items must not be null',
    );
    // A string parameter keeps the word: "None" may be the answer.
    const kept: Record<string, unknown> = { items: [], note: 'None' };
    expect(argumentProblem(order, kept)).toBeUndefined();
    expect(kept.note).toBe('None');
  });
});

describe('a list written as its items joined by commas', () => {
  const schema = {
    type: 'object',
    properties: {
      seats: { type: 'array', items: { type: 'integer' } },
      prices: { type: 'array', items: { type: 'number' } },
      extras: { type: 'array', items: { type: 'string', enum: ['wifi', 'meal', 'extra_bag'] } },
      addresses: { type: 'array', items: { type: 'string' } },
    },
  };
  const checked = (args: Record<string, unknown>) => ({
    problem: argumentProblem(schema, args),
    args,
  });

  it('is that list where each item is one the list takes: numbers, values of an enum', () => {
    expect(checked({ seats: '12, 14;15', prices: '9.5,-2', extras: 'WiFi, extra bag' })).toEqual({
      problem: undefined,
      args: {
        seats: [12, 14, 15],
        prices: [9.5, -2],
        extras: ['wifi', 'extra_bag'],
      },
    });
  });

  it('is left whole where it may be one item, or is none of them (refused as before)', () => {
    // Free text may hold a comma; a number with thousands separators is one number.
    expect(checked({ addresses: '10 Main St, Springfield' }).args).toEqual({
      addresses: ['10 Main St, Springfield'],
    });
    expect(checked({ seats: '1,000' }).problem).toBe(
      'invalid arguments: arguments/seats/0 must be integer',
    );
    expect(checked({ seats: '12345678901234567890, 1' }).problem).toMatch(
      /^invalid arguments: arguments\/seats\/0 must be at most 9007199254740991 in size/,
    );
    expect(checked({ seats: '12, fourteen' }).problem).toBe(
      'invalid arguments: arguments/seats/0 must be integer',
    );
    expect(checked({ extras: 'wifi, lounge' }).problem).toBe(
      'invalid arguments: arguments/extras/0 must be equal to one of the allowed values',
    );
  });
});
