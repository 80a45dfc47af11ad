import { buildHttpRequest, type BuiltRequest } from './http-request-builder.js';
import { validateToolDefinitions } from './tool-validation.js';

const JIRA = {
  name: 'create_issue',
  url: 'https://jira.example/rest/api/2/issue',
  method: 'POST',
  headers: { Authorization: 'Bearer ${TOOL_SECRET_JIRA}' },
  parameters: {
    type: 'object',
    properties: {
      summary: { type: 'string' },
      priority: { type: 'integer' },
      labels: { type: 'array', items: { type: 'string' } },
      reporter: { type: 'string' },
    },
    required: ['summary'],
  },
  body: {
    fields: {
      project: { key: 'OPS' },
      summary: '{summary}',
      priority: '{priority}',
      labels: ['voice', '{labels}'],
      description: 'Reported by {reporter} for ${session.customer}',
      channel: '${TOOL_SECRET_CHANNEL}',
    },
  },
};
const env = { TOOL_SECRET_JIRA: 'j-1', TOOL_SECRET_CHANNEL: 'c#7' };

function load(def: Record<string, unknown>) {
  return validateToolDefinitions([def], 'tools.json', { env });
}
function built(
  def: Record<string, unknown>,
  args: Record<string, unknown>,
  variables: Record<string, string> = {},
): BuiltRequest {
  const result = buildHttpRequest(load(def).tools[0]!, args, variables);
  if ('error' in result) throw new Error(result.error);
  return result;
}

describe('an HTTP tool with a body template', () => {
  it('places each argument as given, typed, beside constants, secrets and session variables', () => {
    const req = built(
      JIRA,
      { summary: 'Printer "jam"', priority: 2, labels: ['hw', 'floor-3'], reporter: 'Ann' },
      { customer: 'ACME' },
    );
    expect(req.headers['Content-Type']).toBe('application/json');
    expect(JSON.parse(req.body!)).toEqual({
      fields: {
        project: { key: 'OPS' },
        summary: 'Printer "jam"',
        priority: 2,
        labels: ['voice', ['hw', 'floor-3']],
        description: 'Reported by Ann for ACME',
        channel: 'c#7',
      },
    });
    expect(req.url).toBe('https://jira.example/rest/api/2/issue');
  });

  it('leaves out a key or an item whose argument the model did not give, and sends no other argument', () => {
    const req = built(JIRA, { summary: 'Jam', reporter: 'Ann', extra: 'x' }, { customer: 'A' });
    expect(JSON.parse(req.body!).fields).toEqual({
      project: { key: 'OPS' },
      summary: 'Jam',
      labels: ['voice'],
      description: 'Reported by Ann for A',
      channel: 'c#7',
    });
    expect(req.body).not.toContain('extra');
  });

  it('refuses a call whose text needs an argument the model did not give', () => {
    const result = buildHttpRequest(load(JIRA).tools[0]!, { summary: 'Jam' }, { customer: 'A' });
    expect(result).toEqual({
      error: "Error: tool request failed: missing argument 'reporter' for placeholder {reporter}",
    });
  });

  it('sends a form of the object with a form Content-Type, and a DELETE its body too', () => {
    const form = built(
      {
        name: 'sms',
        url: 'https://api.twilio.example/Messages.json',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: { From: '+15550001', To: '{to}', Body: '{text}' },
      },
      { to: '+15550002', text: 'Table at 8?' },
    );
    expect(form.body).toBe('From=%2B15550001&To=%2B15550002&Body=Table%20at%208%3F');
    const del = built(
      {
        name: 'purge',
        url: 'https://es.example/idx/_delete_by_query',
        method: 'DELETE',
        body: { query: { term: { user: '{user}' } } },
      },
      { user: 'ann' },
    );
    expect([del.method, del.url, JSON.parse(del.body!)]).toEqual([
      'DELETE',
      'https://es.example/idx/_delete_by_query',
      { query: { term: { user: 'ann' } } },
    ]);
  });

  it('fills a text body (SOAP), its values escaped for XML, or as text/plain', () => {
    const soap = built(
      {
        name: 'lookup',
        url: 'https://legacy.example/ws',
        headers: { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: 'Lookup' },
        body: '<Envelope><Body><Lookup><name>{name}</name><key>${TOOL_SECRET_JIRA}</key></Lookup></Body></Envelope>',
      },
      { name: 'Tom & "Jerry" <co>' },
    );
    expect(soap.body).toBe(
      '<Envelope><Body><Lookup><name>Tom &amp; &quot;Jerry&quot; &lt;co&gt;</name><key>j-1</key></Lookup></Body></Envelope>',
    );
    // A text body that is one argument and nothing else is the model's text, unescaped.
    const whole = built(
      {
        name: 'put_config',
        url: 'https://cdn.example/config',
        headers: { 'Content-Type': 'application/xml' },
        body: '{body}',
      },
      { body: '<Config><Comment>a &amp; b</Comment></Config>' },
    );
    expect(whole.body).toBe('<Config><Comment>a &amp; b</Comment></Config>');
    // An optional body the model left out (SendGrid's list of recipients): no body, no type.
    for (const args of [{}, { body: null }]) {
      const none = built(
        {
          name: 'put_config',
          url: 'https://cdn.example/config',
          method: 'PATCH',
          headers: { 'Content-Type': 'application/xml', 'X-Tenant': 't1' },
          body: '{body}',
        },
        args,
      );
      expect([none.body, none.headers]).toEqual([undefined, { 'X-Tenant': 't1' }]);
    }
    const plain = built(
      { name: 'note', url: 'https://n.example/', body: 'Note: {text}' },
      { text: 'hi' },
    );
    expect([plain.headers['Content-Type'], plain.body]).toEqual([
      'text/plain; charset=utf-8',
      'Note: hi',
    ]);
    const json = built(
      {
        name: 'raw',
        url: 'https://n.example/',
        headers: { 'Content-Type': 'application/json' },
        body: '{"q": "{q}"}',
      },
      { q: 'say "hi"\n' },
    );
    expect(JSON.parse(json.body!)).toEqual({ q: 'say "hi"\n' });
  });
});

describe('a body template, checked at load', () => {
  const at = (def: Record<string, unknown>) => () => load(def);

  it('is refused on a method that carries no body, and as no object for a form', () => {
    expect(at({ ...JIRA, method: 'GET' })).toThrow(
      "tools.json: tool #0 'create_issue': field 'body': a GET request carries no body; give the arguments places in 'url'",
    );
    expect(
      at({
        ...JIRA,
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: ['{summary}'],
      }),
    ).toThrow(
      "field 'body' must be an object for a form body (Content-Type application/x-www-form-urlencoded)",
    );
    expect(at({ ...JIRA, body: 7 })).toThrow("field 'body' is invalid");
  });

  it('names a secret it refers to that is not set, where it stands', () => {
    expect(() =>
      validateToolDefinitions([JIRA], 'tools.json', { env: { TOOL_SECRET_JIRA: 'j' } }),
    ).toThrow(
      "field 'body.fields.channel' refers to ${TOOL_SECRET_CHANNEL}, which is not set in the environment",
    );
  });

  it('warns of a parameter that nothing places', () => {
    const { warnings } = load({
      ...JIRA,
      parameters: { type: 'object', properties: { summary: {}, team: {} } },
    });
    expect(warnings).toContain(
      "tools.json: tool #0 'create_issue': parameter 'team' has no place in 'url', 'headers', 'body' or 'query_arguments': the model's value is not sent",
    );
  });
});
