import { argumentProblem } from './argument-check.js';
import { withNullUnions, withTypedNullable } from './null-unions.js';

describe('withNullUnions', () => {
  it('writes one simple member and null as a union of types, at any depth, enums taking null', () => {
    const optional = (s: object) => ({ anyOf: [s, { type: 'null' }], default: null, title: 'T' });
    expect(
      withNullUnions({
        type: 'object',
        properties: {
          note: optional({ type: 'string', maxLength: 5 }),
          size: { oneOf: [{ type: 'null' }, { type: 'string', enum: ['S', 'M'] }] },
          items: { type: 'array', items: optional({ type: 'integer' }) },
        },
      }),
    ).toEqual({
      type: 'object',
      properties: {
        note: { type: ['string', 'null'], maxLength: 5, default: null, title: 'T' },
        size: { type: ['string', 'null'], enum: ['S', 'M', null] },
        items: { type: 'array', items: { type: ['integer', 'null'], default: null, title: 'T' } },
      },
    });
  });

  it('leaves alone what a union of types cannot say: a $ref, more members, keywords on both sides', () => {
    const kept = [
      { anyOf: [{ $ref: '#/$defs/Guest' }, { type: 'null' }] },
      { anyOf: [{ type: 'string' }, { type: 'integer' }, { type: 'null' }] },
      { anyOf: [{ type: 'string', minLength: 1 }, { type: 'null' }], minLength: 2 },
      { anyOf: [{ type: 'string' }, { type: 'null', description: 'none' }, { type: 'null' }] },
    ];
    for (const schema of kept) expect(withNullUnions(schema)).toBe(schema);
  });
});

describe('withTypedNullable', () => {
  it("writes OpenAPI 3.0's nullable without a type as an alternative with null, which Ajv compiles", () => {
    const owner = { type: 'object', properties: { id: { type: 'integer' } } };
    const schema = {
      type: 'object',
      properties: {
        owner: { nullable: true, allOf: [owner], description: 'Who' },
        team: { nullable: false, allOf: [owner] },
        note: { type: 'string', nullable: true },
      },
    };
    expect(withTypedNullable(schema).properties).toEqual({
      owner: { description: 'Who', anyOf: [{ allOf: [owner] }, { type: 'null' }] },
      team: { allOf: [owner] },
      note: { type: 'string', nullable: true },
    });
    // Before, Ajv refused the schema ("nullable" cannot be used without "type") and nothing of
    // the tool was checked.
    expect(argumentProblem(schema, { owner: { id: 'x' } })).toBe(
      'invalid arguments: arguments/owner/id must be integer, arguments/owner must be null, arguments/owner must match a schema in anyOf',
    );
    expect(argumentProblem(schema, { owner: null, note: null })).toBeUndefined();
  });
});
