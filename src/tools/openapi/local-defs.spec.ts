import { bodyRefsFollowed, withLocalDefs } from './local-defs.js';

describe('withLocalDefs', () => {
  const document = {
    components: {
      schemas: {
        // A comment and its replies, an author who wrote comments: refs inside refs.
        Comment: {
          type: 'object',
          properties: {
            text: { type: 'string' },
            replies: { type: 'array', items: { $ref: '#/components/schemas/Comment' } },
            author: { $ref: '#/components/schemas/Author' },
          },
        },
        Author: {
          type: 'object',
          properties: { latest: { $ref: '#/components/schemas/Comment' } },
        },
      },
      responses: { Comment: { type: 'string' } },
    },
  };

  it("copies what each ref points to into the schema's $defs, once, and points the refs there", () => {
    const schema = {
      type: 'object',
      properties: { comment: { $ref: '#/components/schemas/Comment' } },
    };
    const made = withLocalDefs(schema, document);
    expect(made).toEqual({
      schema: {
        type: 'object',
        properties: { comment: { $ref: '#/$defs/Comment' } },
        $defs: {
          Comment: {
            type: 'object',
            properties: {
              text: { type: 'string' },
              replies: { type: 'array', items: { $ref: '#/$defs/Comment' } },
              author: { $ref: '#/$defs/Author' },
            },
          },
          Author: { type: 'object', properties: { latest: { $ref: '#/$defs/Comment' } } },
        },
      },
    });
    // The document is not changed; a schema without refs is the very one.
    expect(document.components.schemas.Author.properties.latest.$ref).toBe(
      '#/components/schemas/Comment',
    );
    const plain = { type: 'object', properties: {} };
    expect(withLocalDefs(plain, document).schema).toBe(plain);
  });

  it('names two schemas of one name apart, and says which ref points elsewhere or nowhere', () => {
    const schema = {
      type: 'object',
      properties: {
        a: { $ref: '#/components/schemas/Comment' },
        b: { $ref: '#/components/responses/Comment' },
        c: { $ref: 'other.yaml#/Thing' },
        d: { $ref: '#/components/schemas/Missing' },
      },
    };
    const made = withLocalDefs(schema, document);
    expect(made.schema.properties).toEqual({
      a: { $ref: '#/$defs/Comment' },
      b: { $ref: '#/$defs/Comment_2' },
      c: { $ref: 'other.yaml#/Thing' },
      d: { $ref: '#/components/schemas/Missing' },
    });
    expect(made.unresolved).toBe('other.yaml#/Thing');
  });
});

describe('bodyRefsFollowed', () => {
  it("follows the refs at the top of a body's schema and of its allOf parts, not deeper", () => {
    const document = {
      components: {
        schemas: {
          Node: { type: 'object', properties: { next: { $ref: '#/components/schemas/Node' } } },
        },
      },
    };
    const body = {
      content: {
        'application/json': {
          schema: {
            allOf: [{ $ref: '#/components/schemas/Node' }],
            description: 'A list',
          },
        },
      },
    };
    expect(
      bodyRefsFollowed(body as Parameters<typeof bodyRefsFollowed>[0], document)!.content![
        'application/json'
      ]!.schema,
    ).toEqual({
      allOf: [{ type: 'object', properties: { next: { $ref: '#/components/schemas/Node' } } }],
      description: 'A list',
    });
  });
});
