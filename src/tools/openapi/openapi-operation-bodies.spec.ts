import { operationTool, type OpenApiSpec } from './openapi-operation.js';

describe('operationTool on operations that cannot be sent as they are written', () => {
  const post = (operation: Record<string, unknown>, path = '/items'): OpenApiSpec => ({
    servers: [
      { url: 'https://{region}.api.example.com/{v}', variables: { region: { default: 'eu' } } },
    ],
    paths: { [path]: { post: { operationId: 'op', ...operation } } },
  });
  const json = (schema: unknown) => ({ content: { 'application/json': { schema } } });

  it('takes a path variable the operation does not declare as a required string argument', () => {
    const made = operationTool(post({}, '/shops/{shop}/items/{item_id}'), 'op', 'http://x');
    expect(made.url).toBe('http://x/shops/{shop}/items/{item_id}');
    expect(made.parameters).toEqual({
      type: 'object',
      properties: { shop: { type: 'string' }, item_id: { type: 'string' } },
      required: ['shop', 'item_id'],
    });
    expect(() => operationTool(post({}, '/items/{item id}'), 'op', 'http://x')).toThrow(
      'its path parameter "item id" has a name a {placeholder} cannot hold',
    );
  });

  it("leaves out an optional parameter named like the path's (Google's key), not the operation", () => {
    const key = (where: string, required = false) => ({
      name: 'key',
      in: where,
      required,
      schema: { type: 'string' },
    });
    const made = operationTool(
      post({ parameters: [key('query'), key('path', true)] }, '/v1/{key}:retrieve'),
      'op',
      'http://x',
    );
    expect([made.parameters.properties, made.skipped]).toEqual([
      { key: { type: 'string' } },
      ["query parameter 'key' (another parameter has its name)"],
    ]);
    expect(made.url).toBe('http://x/v1/{key}:retrieve');
  });

  it('takes a multipart form of text fields as a form sent so; one with a file is not taken', () => {
    const multipart = (properties: object) => ({
      required: true,
      content: { 'multipart/form-data': { schema: { type: 'object', properties } } },
    });
    const made = operationTool(
      post({ requestBody: multipart({ to: { type: 'string' }, text: { type: 'string' } }) }),
      'op',
      'http://x',
    );
    expect([made.parameters.properties, made.headers]).toEqual([
      { to: { type: 'string' }, text: { type: 'string' } },
      { 'Content-Type': 'multipart/form-data' },
    ]);
    const file = { to: { type: 'string' }, photo: { type: 'string', format: 'binary' } };
    expect(() => operationTool(post({ requestBody: multipart(file) }), 'op', 'http://x')).toThrow(
      'its request body is neither JSON, a form nor text (multipart/form-data)',
    );
  });

  it('takes a body of any type (*/*, as Kubernetes has it) as JSON', () => {
    const object = { type: 'object', properties: { name: { type: 'string' } } };
    const any = (schema: unknown) => ({ content: { '*/*': { schema } } });
    const made = operationTool(post({ requestBody: any(object) }), 'op', 'http://x');
    expect([made.parameters.properties, made.headers]).toEqual([{ name: { type: 'string' } }, {}]);
    const list = operationTool(post({ requestBody: any({ type: 'array' }) }), 'op', 'http://x');
    expect([list.headers, list.body]).toEqual([{ 'Content-Type': 'application/json' }, '{body}']);
  });

  it('fills server variables with their defaults; one without a default needs base_url', () => {
    expect(() => operationTool(post({}), 'op')).toThrow(
      'is required: the spec\'s server URL has a variable {v} without a default ("https://{region}.api.example.com/{v}")',
    );
    const spec = post({});
    spec.servers![0]!.variables!.v = { default: 'v2' };
    expect(operationTool(spec, 'op').url).toBe('https://eu.api.example.com/v2/items');
    // A server URL ending in a slash (as many are written) gives no double slash.
    spec.servers![0]!.url = 'https://{region}.api.example.com/{v}/';
    expect(operationTool(spec, 'op').url).toBe('https://eu.api.example.com/v2/items');
  });

  it('names at most 30 of the operations a spec has when the one asked for is not there', () => {
    const paths = Object.fromEntries(
      Array.from({ length: 40 }, (_, i) => [`/r${i}`, { get: { operationId: `op${i}` } }]),
    );
    const names = Array.from({ length: 30 }, (_, i) => `op${i}`).join(', ');
    expect(() => operationTool({ paths }, 'nope', 'http://x')).toThrow(
      `the spec has no operation "nope" (give an operationId or "METHOD /path"; it has: ${names})`,
    );
  });

  it("sends a body that is an array (Petstore's createWithArray) whole, from one argument", () => {
    const users = {
      type: 'array',
      items: { type: 'object', properties: { name: { type: 'string' } } },
    };
    const made = operationTool(post({ requestBody: json(users) }), 'op', 'http://x');
    expect(made.parameters).toEqual({
      type: 'object',
      properties: { body: { description: 'The request body', ...users } },
    });
    expect(made.body).toBe('{body}');
    expect(made.headers).toEqual({ 'Content-Type': 'application/json' });
  });

  it.each([
    [
      'a body property named as a parameter, when its other name is taken too',
      {
        parameters: [
          { name: 'id', in: 'query', required: true },
          { name: 'body_id', in: 'query', required: true },
        ],
        requestBody: json({ type: 'object', properties: { id: { type: 'integer' } } }),
      },
      "its body property 'id' has the name of one of its parameters, and cannot be offered as 'body_id'",
    ],
    [
      'two parameters of one name in different places',
      {
        parameters: [
          { name: 'id', in: 'query', required: true },
          { name: 'id', in: 'header', required: true },
        ],
      },
      "two of its parameters are named 'id'",
    ],
  ])('refuses %s, saying why', (_, operation, message) => {
    expect(() => operationTool(post(operation), 'op', 'http://x')).toThrow(message);
  });

  it("offers a body property named as a parameter (Petstore's PUT /user/{username}) as body_<name>, and writes the body by argument", () => {
    const user = {
      type: 'object',
      properties: { username: { type: 'string', description: 'Login' }, email: { type: 'string' } },
      // `team` is required but not declared (a document's slip): it is written too.
      required: ['username', 'team'],
    };
    const made = operationTool(
      {
        paths: {
          '/user/{username}': {
            put: {
              operationId: 'updateUser',
              parameters: [
                { name: 'username', in: 'path', required: true, schema: { type: 'string' } },
              ],
              requestBody: json(user),
            },
          },
        },
      },
      'updateUser',
      'http://x',
    );
    expect(made.parameters).toEqual({
      type: 'object',
      properties: {
        username: { type: 'string' },
        body_username: {
          type: 'string',
          description: "In the request body, apart from the parameter 'username'. Login",
        },
        email: { type: 'string' },
      },
      required: ['username', 'body_username', 'team'],
    });
    expect(made.body).toEqual({ username: '{body_username}', email: '{email}', team: '{team}' });
    expect(made.notes).toEqual([
      "its body's 'username' is offered as 'body_username': a parameter has that name",
    ]);
  });

  it("writes OpenAPI 3.0's exclusive bounds and repeated enum values as JSON Schema takes them", () => {
    const made = operationTool(
      post({
        parameters: [
          {
            name: 'n',
            in: 'query',
            required: true,
            schema: {
              type: 'number',
              maximum: 10,
              exclusiveMaximum: true,
              minimum: 0,
              exclusiveMinimum: false,
            },
          },
        ],
        requestBody: json({
          type: 'object',
          properties: { size: { type: 'array', items: { enum: ['S', 'M', 'M'] } } },
        }),
      }),
      'op',
      'http://x',
    );
    expect(made.parameters.properties).toEqual({
      n: { type: 'number', exclusiveMaximum: 10, minimum: 0 },
      size: { type: 'array', items: { enum: ['S', 'M'] } },
    });
  });

  it("takes a form body's fields as arguments, and sends them as a form", () => {
    const made = operationTool(
      post({
        requestBody: {
          required: true,
          content: {
            'application/x-www-form-urlencoded': {
              schema: {
                type: 'object',
                properties: { To: { type: 'string' }, Body: { type: 'string' } },
                required: ['To'],
              },
            },
          },
        },
      }),
      'op',
      'http://x',
    );
    expect(made.parameters).toEqual({
      type: 'object',
      properties: { To: { type: 'string' }, Body: { type: 'string' } },
      required: ['To'],
    });
    expect(made.headers).toEqual({ 'Content-Type': 'application/x-www-form-urlencoded' });
  });

  it('skips a body that is neither JSON, a form nor text when it is optional, saying so', () => {
    const made = operationTool(
      post({ requestBody: { content: { 'image/png': { schema: { type: 'string' } } } } }),
      'op',
      'http://x',
    );
    expect(made.parameters).toEqual({ type: 'object', properties: {} });
    expect(made.skipped).toEqual(['request body (image/png)']);
  });

  it('takes a text or XML body as one argument, the text the model writes (CloudFront, a note)', () => {
    const xml = { 'application/xml': { schema: { type: 'object' } }, 'image/png': {} };
    const made = operationTool(
      post({ requestBody: { required: true, content: xml } }),
      'op',
      'http://x',
    );
    expect([made.parameters, made.headers, made.body]).toEqual([
      {
        type: 'object',
        properties: {
          body: { type: 'string', description: 'The request body, as application/xml' },
        },
        required: ['body'],
      },
      { 'Content-Type': 'application/xml' },
      '{body}',
    ]);
  });

  it('reads a JSON body under a structured-syntax media type (application/merge-patch+json)', () => {
    const schema = { type: 'object', properties: { status: { type: 'string' } } };
    const made = operationTool(
      post({ requestBody: { content: { 'application/merge-patch+json': { schema } } } }),
      'op',
      'http://x',
    );
    expect(made.parameters).toEqual({ type: 'object', properties: { status: { type: 'string' } } });
  });

  it('describes the operation by its summary and description, once when they are the same', () => {
    const described = (summary: string, description: string) =>
      operationTool(post({ summary, description }), 'op', 'http://x').description;
    expect(described('Cancel an order', 'Cancel an order')).toBe('Cancel an order');
    expect(described('Cancel an order', 'Only before it ships.')).toBe(
      'Cancel an order\n\nOnly before it ships.',
    );
    expect(described('', ' Only before it ships. ')).toBe('Only before it ships.');
  });
});
