import { toJsonSchema } from './openapi-schema.js';

describe('toJsonSchema', () => {
  it('writes boolean exclusive bounds as numbers, at any depth, and leaves false ones out', () => {
    const schema = {
      type: 'object',
      properties: {
        ratio: {
          type: 'number',
          minimum: 0,
          exclusiveMinimum: true,
          maximum: 1,
          exclusiveMaximum: false,
        },
        scores: {
          type: 'array',
          items: { anyOf: [{ type: 'integer', maximum: 5, exclusiveMaximum: true }] },
        },
      },
    };
    expect(toJsonSchema(schema)).toEqual({
      type: 'object',
      properties: {
        ratio: { type: 'number', exclusiveMinimum: 0, maximum: 1 },
        scores: { type: 'array', items: { anyOf: [{ type: 'integer', exclusiveMaximum: 5 }] } },
      },
    });
    expect(schema.properties.ratio.exclusiveMinimum).toBe(true); // the document is not changed
  });

  it("leaves out vendors' extensions and XML naming, not properties of those names", () => {
    const schema = {
      type: 'object',
      'x-ms-azure-resource': true,
      properties: {
        tags: {
          type: 'object',
          additionalProperties: { type: 'string' },
          'x-ms-mutability': ['read', 'create'],
        },
        'x-request-id': { type: 'string', xml: { attribute: true } },
        xml: { type: 'string', default: { 'x-kept': 1 } },
      },
      xml: { name: 'zone' },
    };
    expect(toJsonSchema(schema)).toEqual({
      type: 'object',
      properties: {
        tags: { type: 'object', additionalProperties: { type: 'string' } },
        'x-request-id': { type: 'string' },
        xml: { type: 'string', default: { 'x-kept': 1 } },
      },
    });
  });

  it('lists a repeated enum value once, and returns a schema needing no change as it is', () => {
    expect(toJsonSchema({ enum: ['a', 'b', 'a', 1, '1'] })).toEqual({ enum: ['a', 'b', 1, '1'] });
    const plain = { type: 'object', properties: { exclusiveMaximum: { type: 'boolean' } } };
    expect(toJsonSchema(plain)).toBe(plain);
  });
});
