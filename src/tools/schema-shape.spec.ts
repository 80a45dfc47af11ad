import { argumentProblem } from './argument-check.js';
import { shapeOf } from './schema-shape.js';

/** A nested model as Pydantic v2 and FastMCP write it: in `$defs`, by `$ref`. */
const GUEST = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    phone: { anyOf: [{ type: 'string' }, { type: 'null' }], default: null },
    note: { type: 'string' },
  },
  required: ['name'],
};

describe('nulls inside models given by $ref', () => {
  it('leaves out an optional null and refuses a required one, as for a model written in place', () => {
    const schema = {
      type: 'object',
      $defs: { Guest: GUEST },
      properties: {
        guest: { $ref: '#/$defs/Guest' },
        others: { type: 'array', items: { $ref: '#/$defs/Guest' } },
        // Optional[Guest]
        host: { anyOf: [{ $ref: '#/$defs/Guest' }, { type: 'null' }], default: null },
      },
      required: ['guest'],
    };
    const args = {
      guest: { name: 'Ada', note: null, phone: null },
      others: [{ name: 'Bo', note: null }],
      host: { name: 'Cy', note: null },
    };
    expect(argumentProblem(schema, args)).toBeUndefined();
    // Not "" for the note (coerced), null kept where the model may say none (the phone; its
    // default filled in, but inside anyOf, where Ajv fills in none).
    expect(args).toEqual({
      guest: { name: 'Ada', phone: null },
      others: [{ name: 'Bo', phone: null }],
      host: { name: 'Cy' },
    });
    expect(argumentProblem(schema, { guest: { name: null } })).toBe(
      'invalid arguments: arguments/guest/name must not be null',
    );
    expect(argumentProblem(schema, { guest: { name: 'A' }, host: { name: null } })).toBe(
      'invalid arguments: arguments/host/name must not be null',
    );
  });

  it('follows Pydantic v1 (definitions, a $ref wrapped in allOf) and a model that holds itself', () => {
    const v1 = {
      type: 'object',
      definitions: { Guest: GUEST },
      properties: { guest: { allOf: [{ $ref: '#/definitions/Guest' }], description: 'Who' } },
    };
    const args = { guest: { name: 'Ada', note: null } };
    expect(argumentProblem(v1, args)).toBeUndefined();
    expect(args).toEqual({ guest: { name: 'Ada', phone: null } });

    const chain = {
      type: 'object',
      $defs: {
        'Node/1': {
          type: 'object',
          properties: { label: { type: 'string' }, next: { $ref: '#/$defs/Node~11' } },
          required: ['label'],
        },
      },
      properties: { head: { $ref: '#/$defs/Node~11' } },
    };
    const linked = { head: { label: 'a', next: { label: 'b', next: { label: null } } } };
    expect(argumentProblem(chain, linked)).toBe(
      'invalid arguments: arguments/head/next/next/label must not be null',
    );
  });

  it('reads a shape through a $ref that loops, or points nowhere, without end', () => {
    const root = { $defs: { A: { $ref: '#/$defs/B' }, B: { $ref: '#/$defs/A' } } };
    expect(shapeOf({ $ref: '#/$defs/A' }, root)).toEqual({ required: [] });
    expect(shapeOf({ $ref: 'https://example.com/other.json' }, root)).toEqual({ required: [] });
    expect(shapeOf({ allOf: [{ $ref: '#' }] }, { allOf: [{ $ref: '#' }] })).toEqual({
      required: [],
    });
  });
});
