import { bodyRefsFollowed, largerThan, withLocalDefs } from './local-defs.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expandOpenApi } from './openapi-expand.js';
import { operationTool } from './openapi-operation.js';

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

describe('parameters too large to offer', () => {
  it('measures JSON text without writing it', () => {
    const value = { a: ['x'.repeat(10), 1, null], b: { c: true } };
    const length = JSON.stringify(value).length;
    expect([largerThan(value, length + 20), largerThan(value, length - 20)]).toEqual([false, true]);
  });

  it("asks for the parameters of an operation whose shared schemas, written out where they are used, make over 256 KiB (DocuSign's envelope)", async () => {
    // One schema of ~1 KB, used by each of 20 fields of each of 20 parts: 400 copies.
    const address = {
      type: 'object',
      properties: Object.fromEntries(
        Array.from({ length: 20 }, (_, i) => [`line${i}`, { type: 'string', maxLength: 100 }]),
      ),
    };
    const part = {
      type: 'object',
      properties: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`a${i}`, address])),
    };
    const envelope = {
      type: 'object',
      properties: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`p${i}`, part])),
    };
    const spec = {
      servers: [{ url: 'https://api.example.com' }],
      paths: {
        '/envelopes': {
          post: {
            operationId: 'send',
            requestBody: { content: { 'application/json': { schema: envelope } } },
          },
        },
      },
    };
    const made = operationTool(spec, 'send');
    expect([made.tooLarge, made.parameters]).toEqual([true, { type: 'object' }]);
    // The entry must then give its parameters; with them, it is a tool like any other.
    const dir = mkdtempSync(join(tmpdir(), 'engine-spec-'));
    writeFileSync(join(dir, 'envelopes.json'), JSON.stringify({ openapi: '3.0.3', ...spec }));
    const entry = { type: 'openapi', spec: 'envelopes.json', operation: 'send' };
    const options = { baseDir: dir, timeoutMs: 1000 };
    await expect(expandOpenApi([entry], 'tools.json', options)).rejects.toThrow(
      "tools.json: tool #0 'send': field 'parameters' is required: the operation's arguments make a schema of more than 256 KiB as JSON, more than a model should be given (its shared schemas written out wherever they are used): give 'parameters' naming what the model should send",
    );
    const parameters = { type: 'object', properties: { p0: { type: 'object' } } };
    const given = await expandOpenApi([{ ...entry, parameters }], 'tools.json', options);
    expect((given.definitions as unknown[])[0]).toMatchObject({ name: 'send', parameters });
  });
});
