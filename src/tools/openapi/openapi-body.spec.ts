import { bodyArguments, placeBody, skippedBody, type SchemaObject } from './openapi-body.js';

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

  it("takes a schema's list that is no list (`required: 0`), or a part that is no object, as none", () => {
    const body = json({
      type: 'object',
      properties: { id: name },
      required: 0,
      allOf: [true, null, { properties: { labels }, required: ['labels', 7] }],
      oneOf: 'x',
    } as unknown as SchemaObject);
    expect(bodyArguments(body)).toEqual({
      properties: { id: name, labels },
      required: ['labels'],
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
    [{ type: 'array', items: name }],
    [{ oneOf: [labels, name] }],
    [{ allOf: [{ type: 'string' }] }],
  ])('takes a JSON body that is no object whole, as one argument: %j', (schema) => {
    expect(bodyArguments(json(schema, true))).toEqual({
      properties: { body: { description: 'The request body', ...schema } },
      required: ['body'],
      form: false,
      whole: 'application/json',
    });
  });

  it('names the whole body otherwise when a parameter is named body, and refuses a form that is no object', () => {
    const whole = bodyArguments(json(labels))!;
    expect(placeBody(whole, new Set(['id']))).toMatchObject({ template: '{body}', required: [] });
    expect(placeBody(whole, new Set(['body']))).toMatchObject({ template: '{request_body}' });
    const form = { 'application/x-www-form-urlencoded': { schema: labels } };
    expect(() => bodyArguments({ content: form })).toThrow(
      `its form is "array", not an object: a form's fields are an object's`,
    );
  });

  it('takes a form when there is no JSON, and names an optional body it cannot send', () => {
    const form = { 'application/x-www-form-urlencoded': { schema: { properties: { To: name } } } };
    expect(bodyArguments({ content: form })).toMatchObject({
      properties: { To: name },
      form: true,
    });
    const octets = { content: { 'application/octet-stream': { schema: name } } };
    expect(bodyArguments(octets)).toBeUndefined();
    expect(skippedBody(octets)).toBe('request body (application/octet-stream)');
    expect(() => bodyArguments({ ...octets, required: true })).toThrow(
      'its request body is neither JSON, a form nor text (application/octet-stream)',
    );
  });
});
