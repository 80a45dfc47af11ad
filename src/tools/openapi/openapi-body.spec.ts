import { bodyArguments, skippedBody, type SchemaObject } from './openapi-body.js';

const json = (schema: SchemaObject, required = false) => ({
  required,
  content: { 'application/json': { schema } },
});
const labels = { type: 'array', items: { type: 'string' } };
const name = { type: 'string' };

describe('bodyArguments', () => {
  it("offers the object of a body that is an object or the array alone (GitHub's add-labels)", () => {
    const body = json({
      oneOf: [{ type: 'object', properties: { labels }, required: ['labels'] }, labels],
    });
    expect(bodyArguments(body)).toEqual({
      properties: { labels },
      required: ['labels'],
      form: false,
    });
  });

  it('offers the properties of several objects together, required where every one requires them', () => {
    const card = { type: 'object', properties: { name, card: name }, required: ['name', 'card'] };
    const bank = { type: 'object', properties: { name, iban: name }, required: ['name', 'iban'] };
    const made = bodyArguments(json({ anyOf: [card, bank] }));
    expect(made).toMatchObject({
      properties: { name, card: name, iban: name },
      required: ['name'],
    });
    expect(made?.note).toBe(
      "its JSON request body is one of 2 objects: the model is offered their properties together, required only where every one requires them (give 'parameters' to describe it better)",
    );
  });

  it("merges allOf parts, their own alternatives too, and takes OpenAPI 3.1's list of types", () => {
    const body = json({
      type: ['object', 'null'],
      allOf: [
        { properties: { id: name }, required: ['id'] },
        { oneOf: [{ type: 'object', properties: { labels } }, labels] },
      ],
    });
    expect(bodyArguments(body)).toEqual({
      properties: { id: name, labels },
      required: ['id'],
      form: false,
    });
  });

  it('says when a body declares no properties (a free-form object), for the admin to give them', () => {
    const made = bodyArguments(
      json({ type: 'object', additionalProperties: true } as SchemaObject),
    );
    expect(made).toMatchObject({ properties: {}, required: [] });
    expect(made?.note).toBe(
      "its JSON request body declares no properties, so the model is offered none: give 'parameters' to name them",
    );
  });

  it.each([
    [{ type: 'array', items: name }, 'its JSON request body is "array", not an object'],
    [{ oneOf: [labels, name] }, 'its JSON request body is one of "array", "string", not an object'],
    [{ allOf: [{ type: 'string' }] }, 'its JSON request body is "string", not an object'],
  ])('refuses a body that is no object: %j', (schema, message) => {
    expect(() => bodyArguments(json(schema))).toThrow(`${message}: a tool's arguments`);
  });

  it('takes a form when there is no JSON, and names an optional body it cannot send', () => {
    const form = { 'application/x-www-form-urlencoded': { schema: { properties: { To: name } } } };
    expect(bodyArguments({ content: form })).toMatchObject({
      properties: { To: name },
      form: true,
    });
    const text = { content: { 'text/plain': { schema: name } } };
    expect(bodyArguments(text)).toBeUndefined();
    expect(skippedBody(text)).toBe('request body (text/plain)');
    expect(() => bodyArguments({ ...text, required: true })).toThrow(
      'its request body is neither JSON nor a form (text/plain)',
    );
  });
});
