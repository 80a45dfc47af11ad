import { buildHttpRequest, QUERY_VERBS, type BuiltRequest } from './http-request-builder.js';
import { validateToolDefinitions } from './tool-validation.js';
import { builtRequest as built, toolOf as tool } from '../../test/support/built-request.js';

describe('placeholders in the url', () => {
  it.each([
    ['Rome', 'http://h/w/Rome?format=3'],
    ['New York', 'http://h/w/New%20York?format=3'],
    ['São Paulo', 'http://h/w/S%C3%A3o%20Paulo?format=3'],
    ['a/b', 'http://h/w/a%2Fb?format=3'],
    ['a?b=c', 'http://h/w/a%3Fb%3Dc?format=3'],
    ['x#frag', 'http://h/w/x%23frag?format=3'],
    ['..a', 'http://h/w/..a?format=3'],
    ['🌧', 'http://h/w/%F0%9F%8C%A7?format=3'],
  ])('encodes %j so it stays inside its path segment', (city, url) => {
    expect(built({ url: 'http://h/w/{city}?format=3', method: 'GET' }, { city }).url).toBe(url);
  });

  it('writes numbers and booleans as text and does not send consumed arguments again', () => {
    const req = built(
      { url: 'http://h/items/{id}/{flag}', method: 'GET' },
      { id: 5, flag: true, limit: 10 },
    );
    expect(req.url).toBe('http://h/items/5/true?limit=10');
  });

  it("leaves a null out of the query, as Python's requests leaves None out", () => {
    const req = built(
      { url: 'http://h/issues', method: 'GET' },
      { state: 'open', milestone: null },
    );
    expect(req.url).toBe('http://h/issues?state=open');
  });

  it('sends a value that looks encoded as literal text, so it cannot become a dot segment', () => {
    expect(built({ url: 'http://h/items/{id}', method: 'GET' }, { id: '%2e%2E' }).url).toBe(
      'http://h/items/%252e%252E',
    );
  });

  it.each(['.', '..'])('refuses %j as a whole path segment with the error text', (id) => {
    const result = buildHttpRequest(tool({ url: 'http://h/items/{id}', method: 'GET' }), { id });
    expect(result).toEqual({
      error: expect.stringMatching(
        /^Error: tool request failed: argument value would make the path segment/,
      ),
    });
  });

  it('cannot change host or port through a placeholder', () => {
    const req = built({ url: 'http://h:81/{p}', method: 'GET' }, { p: '@evil.com:80/x' });
    expect(new URL(req.url).host).toBe('h:81');
    expect(req.url).toBe('http://h:81/%40evil.com%3A80%2Fx');
  });

  it('writes a list of values as a list: joined by commas, each item encoded; anything else as JSON', () => {
    const req = built(
      { url: 'http://h/users/{ids}?tags={tags}', method: 'POST', headers: { 'X-Ids': '{ids}' } },
      { ids: [3, 'a/b', true], tags: [{ k: 1 }] },
    );
    expect(req.url).toBe('http://h/users/3,a%2Fb,true?tags=%5B%7B%22k%22%3A1%7D%5D');
    expect(req.headers['X-Ids']).toBe('3,a/b,true');
  });

  it('reports a missing placeholder argument', () => {
    expect(buildHttpRequest(tool({ url: 'http://h/{id}', method: 'GET' }), {})).toEqual({
      error: "Error: tool request failed: missing argument 'id' for placeholder {id}",
    });
  });
});

describe('headers', () => {
  it('fills placeholders unencoded and keeps the argument for the body (seed: only url placeholders consume)', () => {
    const req = built(
      { url: 'http://h/notes', headers: { Authorization: 'Bearer {token}' } },
      { token: 'abc', text: 'hi' },
    );
    expect(req.headers).toEqual({
      Authorization: 'Bearer abc',
      'Content-Type': 'application/json',
    });
    expect(JSON.parse(req.body!)).toEqual({ token: 'abc', text: 'hi' });
  });

  it.each(['a\r\nX-Evil: 1', 'a\nb', 'a\rb'])('refuses a value with CR or LF: %j', (token) => {
    const result = buildHttpRequest(tool({ url: 'http://h/', headers: { 'X-T': '{token}' } }), {
      token,
    });
    expect(result).toEqual({
      error: "Error: tool request failed: header 'X-T' value contains a line break",
    });
  });

  it.each([
    ['a\0b', 'a control character'],
    ['a\x1bb', 'a control character'],
    ['東京', 'a character beyond Latin-1, which an HTTP header cannot carry'],
    ['🙂', 'a character beyond Latin-1, which an HTTP header cannot carry'],
  ])('refuses a value Node would not send: %j', (token, what) => {
    const result = buildHttpRequest(tool({ url: 'http://h/', headers: { 'X-T': '{token}' } }), {
      token,
    });
    expect(result).toEqual({
      error: `Error: tool request failed: header 'X-T' value contains ${what}`,
    });
  });

  it('sends tabs and Latin-1 letters in a header as they are', () => {
    const req = built(
      { url: 'http://h/', headers: { 'X-T': '{token}' } },
      { token: 'café\tcrème' },
    );
    expect(req.headers['X-T']).toBe('café\tcrème');
  });

  it('keeps a Content-Type the tool sets', () => {
    const req = built(
      { url: 'http://h/', headers: { 'content-type': 'application/vnd+json' } },
      {},
    );
    expect(req.headers).toEqual({ 'content-type': 'application/vnd+json' });
  });
});

describe('verb routing', () => {
  const args = { id: '5', limit: 10, tags: ['a', 'b'], filter: { q: 'x' } };
  it.each(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'DELETE', 'get', 'Delete'])(
    '%s sends the rest as a query, no body',
    (method) => {
      const req = built({ url: 'http://h/items/{id}', method }, args);
      expect(req.method).toBe(method.toUpperCase());
      expect(req.body).toBeUndefined();
      expect(req.url).toBe(
        'http://h/items/5?limit=10&tags=%5B%22a%22%2C%22b%22%5D&filter=%7B%22q%22%3A%22x%22%7D',
      );
    },
  );

  it.each(['POST', 'PUT', 'PATCH', 'PURGE', 'patch', 'MKCOL'])(
    '%s sends the rest as a JSON body',
    (method) => {
      const req = built({ url: 'http://h/items/{id}', method }, args);
      expect(req.url).toBe('http://h/items/5');
      expect(req.headers['Content-Type']).toBe('application/json');
      expect(JSON.parse(req.body!)).toEqual({ limit: 10, tags: ['a', 'b'], filter: { q: 'x' } });
    },
  );

  it('sends {} when nothing is left and defaults to POST', () => {
    const req = built({ url: 'http://h/items/{id}' }, { id: 1 });
    expect(req.method).toBe('POST');
    expect(req.body).toBe('{}');
  });

  it('sends the value of a JSON body that is one argument and nothing else as JSON (an array body)', () => {
    const def = {
      url: 'http://h/users',
      headers: { 'Content-Type': 'application/json' },
      body: '{users}',
    };
    expect(built(def, { users: [{ name: 'Ada' }] }).body).toBe('[{"name":"Ada"}]');
    // A text body's argument is text, as ever.
    expect(built({ ...def, headers: {} }, { users: 'Ada & Bo' }).body).toBe('Ada & Bo');
  });

  it('sends query_arguments in the query whatever the verb, when given, and the rest as the verb does', () => {
    const def = {
      url: 'http://h/orders',
      query_arguments: ['dry_run', 'tags'],
      query_styles: { tags: { style: 'form', explode: false } },
    };
    const req = built(def, { item: 'tea', dry_run: true, tags: ['a', 'b'] });
    expect(req.url).toBe('http://h/orders?dry_run=true&tags=a,b');
    expect(JSON.parse(req.body!)).toEqual({ item: 'tea' });
    expect(built(def, { item: 'tea' }).url).toBe('http://h/orders');
    // A body template's request too.
    const templated = built({ ...def, body: { what: '{item}' } }, { item: 'tea', dry_run: false });
    expect([templated.url, templated.body]).toEqual([
      'http://h/orders?dry_run=false',
      '{"what":"tea"}',
    ]);
  });

  it.each([
    ['http://h/w?format=3', 'http://h/w?format=3&lang=it'],
    ['http://h/w?', 'http://h/w?lang=it'],
    ['http://h/w?format=3&', 'http://h/w?format=3&lang=it'],
    ['http://h/w#top', 'http://h/w?lang=it#top'],
  ])('appends to the query string of %s, before any fragment', (url, sent) => {
    expect(built({ url, method: 'GET' }, { lang: 'it' }).url).toBe(sent);
  });

  it('keeps dot segments the tool url itself has; only an argument may not make one', () => {
    expect(built({ url: 'http://h/api/./v1/{id}', method: 'GET' }, { id: 'x' }).url).toBe(
      'http://h/api/./v1/x',
    );
  });

  it('routes exactly the five query verbs', () => {
    expect([...QUERY_VERBS].sort()).toEqual(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'TRACE']);
  });

  it('fails an invalid verb with the seed text, quoting it as written', () => {
    expect(buildHttpRequest(tool({ url: 'http://h/', method: 'GE T' }), {})).toEqual({
      error: "Error: invalid HTTP method 'GE T' for tool 't'",
    });
  });
});

describe('session variables (${session.NAME})', () => {
  const def = {
    url: 'https://crm.example/customers/${session.customer_id}/orders/{order}',
    method: 'GET',
    headers: { 'X-User-Token': '${session.user_token}' },
  };
  const variables = { customer_id: 'c 42/x', user_token: 'tok-123' };

  it('fills the url (encoded) and headers from the session, never from the arguments', () => {
    const req = buildHttpRequest(tool(def), { order: '7', customer_id: 'someone-else' }, variables);
    expect(req).toEqual({
      method: 'GET',
      url: 'https://crm.example/customers/c%2042%2Fx/orders/7?customer_id=someone-else',
      headers: { 'X-User-Token': 'tok-123' },
    });
  });

  it('does not read a variable reference that came in an argument', () => {
    const req = buildHttpRequest(tool(def), { order: '${session.user_token}' }, variables);
    expect((req as BuiltRequest).url).toBe(
      'https://crm.example/customers/c%2042%2Fx/orders/%24%7Bsession.user_token%7D',
    );
  });

  it('refuses a call when the session lacks the variable', () => {
    expect(buildHttpRequest(tool(def), { order: '7' }, { customer_id: '42' })).toEqual({
      error:
        "Error: tool request failed: the session has no variable 'user_token' for ${session.user_token} (the client sets it with session.update)",
    });
  });

  it('is refused in the host of a tool that sends secrets', () => {
    expect(() =>
      validateToolDefinitions(
        [{ name: 't', url: 'https://${session.host}/x', headers: { A: '${TOOL_SECRET_KEY}' } }],
        'test',
        { env: { TOOL_SECRET_KEY: 'k' } },
      ),
    ).toThrow("field 'url' has a placeholder in its host");
  });
});
