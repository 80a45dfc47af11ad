import { readFileSync } from 'node:fs';
import { validateToolDefinitions } from './tool-validation.js';
import { expandOpenApi } from './openapi/openapi-expand.js';
import { definitionRefusal } from '../../test/support/definition-refusal.js';

const ok = { name: 'get_weather', url: 'https://wttr.in/{city}', method: 'GET' };

const message = definitionRefusal;

describe('validateToolDefinitions', () => {
  it('keeps the question asked before each call of a tool that needs approval', () => {
    const [tool] = validateToolDefinitions(
      [{ ...ok, confirm: true, confirm_prompt: 'Weather for {city}?' }],
      's',
    ).tools;
    expect(tool).toMatchObject({ confirm: true, confirmPrompt: 'Weather for {city}?' });
  });

  it('asks approval, with "confirm": "destructive", of the calls that may change something', async () => {
    const confirmed = (entries: Record<string, unknown>[]) =>
      validateToolDefinitions(
        entries.map((e, i) => ({ ...ok, name: `t${i}`, confirm: 'destructive', ...e })),
        's',
      ).tools.map((t) => t.confirm === true);
    expect(
      confirmed([{}, { method: 'POST' }, { method: 'DELETE' }, { method: 'POST', safe: true }]),
    ).toEqual([false, true, true, false]);
    // An OpenAPI operation as its method makes it.
    const spec = { type: 'openapi', spec: 'orders.yaml', confirm: 'destructive' };
    const operations = ['getOrder', 'cancelOrder'].map((operation) => ({ ...spec, operation }));
    const made = await expandOpenApi(operations, 's', {
      baseDir: 'test/fixtures/openapi',
      timeoutMs: 1000,
    });
    const tools = validateToolDefinitions(made.definitions, 's').tools;
    expect(tools.map((t) => [t.name, t.confirm === true])).toEqual([
      ['getOrder', false],
      ['cancelOrder', true],
    ]);
    expect(message([{ type: 'python', code: 'def f(): pass', confirm: 'destructive' }])).toBe(
      `tools.json: tool #0: field 'confirm' is invalid: expected true or false (HTTP, OpenAPI and MCP tools: also "destructive")`,
    );
  });

  it('keeps "background": true of the tools the model reads a result of, and of no other', () => {
    const [http, code] = validateToolDefinitions(
      [
        { ...ok, background: true },
        { type: 'python', code: 'def f() -> str:\n    return "x"', background: true },
      ],
      's',
    ).tools;
    expect([http!.background, code!.background]).toEqual([true, true]);
    expect(validateToolDefinitions([ok], 's').tools[0]!.background).toBeUndefined();
  });

  it('keeps "untrusted" of any tool, and "safe" of a code tool', () => {
    const code = { type: 'python', code: 'def f() -> str:\n    return "x"' };
    const [page, priced, other] = validateToolDefinitions(
      [{ ...ok, untrusted: true }, { ...code, safe: true }, code],
      's',
    ).tools;
    expect(page!.untrusted).toBe(true);
    expect([priced!.safe, other!.safe]).toEqual([true, undefined]);
    expect(message([{ ...code, safe: 'yes' }])).toMatch(
      /field 'safe' is invalid: expected true or false/,
    );
  });

  it('applies the seed defaults', () => {
    const [tool] = validateToolDefinitions([{ name: 'n', url: 'http://h/' }], 's').tools;
    expect(tool).toMatchObject({
      method: 'POST',
      description: '',
      headers: {},
      parameters: { type: 'object', properties: {} },
    });
  });

  it('loads every example of the seed (tools.example.json)', () => {
    const defs = JSON.parse(readFileSync('tools.example.json', 'utf8'));
    const { tools, warnings } = validateToolDefinitions(defs, 'tools.example.json');
    expect(tools.map((t) => `${t.method} ${t.name}`)).toEqual([
      'GET get_weather',
      'POST create_note',
      'POST send_webhook',
      'GET list_items',
      'GET get_item',
      'POST add_item',
      'PATCH update_item',
      'PUT replace_item',
      'DELETE delete_item',
      'HEAD item_exists',
    ]);
    expect(warnings).toEqual([]);
  });

  it.each([
    [{}, 'tools.json: expected a JSON array of tool definitions'],
    [[], 'tools.json: the array holds no tool definition'],
    [[ok, 3], 'tools.json: tool #1: expected an object, got number'],
    [[ok, null], 'tools.json: tool #1: expected an object, got null'],
    [[{ url: 'http://h/' }], "tools.json: tool #0: field 'name' is required"],
    [
      [{ name: 'a' }],
      "tools.json: tool #0 'a': field 'url' is required: expected an absolute http:// or https:// URL",
    ],
    [
      [{ name: 'a', url: 'ftp://h/' }],
      "tools.json: tool #0 'a': field 'url' is invalid: expected an absolute http:// or https:// URL",
    ],
    [[{ name: 'a', url: '/relative' }], "tools.json: tool #0 'a': field 'url' is invalid"],
    [[{ name: 7, url: 'http://h/' }], "tools.json: tool #0: field 'name' is invalid"],
    [[{ name: 'a b', url: 'http://h/' }], "tools.json: tool #0 'a b': field 'name' is invalid"],
    [
      [{ name: 'a', url: 'http://h/', method: 3 }],
      "tools.json: tool #0 'a': field 'method' is invalid: expected a non-empty string",
    ],
    [
      [{ name: 'a', url: 'http://h/', headers: { X: 1 } }],
      "tools.json: tool #0 'a': field 'headers.X' is invalid: expected a string",
    ],
    [
      [{ name: 'a', url: 'http://h/', headers: { 'X Y': 'v' } }],
      "tools.json: tool #0 'a': field 'headers' has an invalid header name",
    ],
    [
      [{ name: 'a', url: 'http://h/', headers: { 'X-City': 'Zürich–Genève' } }],
      "tools.json: tool #0 'a': field 'headers.X-City' holds a character beyond Latin-1, which an HTTP header cannot carry",
    ],
    [
      [{ name: 'a', url: 'http://h/', headers: { 'X-T': 'a\tb\u0007' } }],
      "tools.json: tool #0 'a': field 'headers.X-T' holds a control character",
    ],
    [
      [{ name: 'a', url: 'http://h/', parameters: 'x' }],
      "tools.json: tool #0 'a': field 'parameters' is invalid: expected a JSON Schema object",
    ],
    [
      [{ name: 'a', url: 'http://h/', parameters: { type: 'nonsense' } }],
      "tools.json: tool #0 'a': field 'parameters' is not a valid JSON Schema",
    ],
    [[ok, { ...ok }], "tools.json: tool #1 'get_weather': field 'name' duplicates tool #0"],
    [
      [{ ...ok, background: 'yes' }],
      "tools.json: tool #0 'get_weather': field 'background' is invalid: expected true or false",
    ],
    [
      [{ type: 'end_session', name: 'hang_up', background: true }],
      "tools.json: tool #0 'hang_up': field 'background' is only for tools whose result the model reads, not for type \"end_session\", whose work belongs to its turn",
    ],
    [
      [{ ...ok, confirm_prompt: 'Sure?' }],
      `tools.json: tool #0 'get_weather': field 'confirm_prompt' is only used with "confirm": true`,
    ],
    [
      [{ ...ok, confirm: true, confirm_prompt: '' }],
      "tools.json: tool #0 'get_weather': field 'confirm_prompt' is invalid: expected a question of 1 to 500 characters",
    ],
    [
      [{ ...ok, wait_phrase: { english: 'Wait.' } }],
      "tools.json: tool #0 'get_weather': field 'wait_phrase' is invalid: expected a phrase of 1 to 200 characters, a list of up to 20 such phrases said in turn, or an object of language codes and a phrase or list each",
    ],
    [
      [{ ...ok, wait_phrase: '' }],
      "tools.json: tool #0 'get_weather': field 'wait_phrase' is invalid: expected a phrase",
    ],
    [
      [{ ...ok, wait_phrase: { en: ['One moment.', ''] } }],
      "tools.json: tool #0 'get_weather': field 'wait_phrase' is invalid: expected a phrase",
    ],
    [
      [{ ...ok, wait_phrase: [] }],
      "tools.json: tool #0 'get_weather': field 'wait_phrase' is invalid: expected a phrase",
    ],
    [
      [{ ...ok, result_max_chars: 0 }],
      "tools.json: tool #0 'get_weather': field 'result_max_chars' is invalid: expected an integer from 1 to 10000000",
    ],
    [
      [{ ...ok, response_query: 'items[' }],
      "tools.json: tool #0 'get_weather': field 'response_query' is not a valid JMESPath expression: Syntax error",
    ],
    [
      [{ ...ok, error_query: 'errors[?' }],
      "tools.json: tool #0 'get_weather': field 'error_query' is not a valid JMESPath expression: Syntax error",
    ],
    [
      [{ ...ok, error_query: '' }],
      "tools.json: tool #0 'get_weather': field 'error_query' is invalid: expected a JMESPath expression of 1 to 2000 characters",
    ],
    [
      [{ ...ok, cache_secs: 0 }],
      "tools.json: tool #0 'get_weather': field 'cache_secs' is invalid: expected a number of seconds greater than 0, at most 86400",
    ],
    [
      [{ ...ok, method: 'POST', cache_secs: 60 }],
      `tools.json: tool #0 'get_weather': field 'cache_secs' is only for a tool whose requests change nothing: method GET, HEAD, OPTIONS or TRACE, or "safe": true`,
    ],
    [
      [{ ...ok, method: 'GET', safe: false, cache_secs: 60 }],
      "tools.json: tool #0 'get_weather': field 'cache_secs' is only for a tool whose requests change nothing",
    ],
    [
      [{ ...ok, idempotency_header: 'Idempotency Key' }],
      "tools.json: tool #0 'get_weather': field 'idempotency_header' is invalid: expected a header name",
    ],
    [
      [{ ...ok, headers: { 'idempotency-key': 'k' }, idempotency_header: 'Idempotency-Key' }],
      "tools.json: tool #0 'get_weather': field 'idempotency_header' names a header that 'headers' sets too",
    ],
    [
      [{ ...ok, retries: 6 }],
      "tools.json: tool #0 'get_weather': field 'retries' is invalid: expected an integer from 0 to 5",
    ],
  ])('rejects %j naming file, index, tool and field', (input, expected) => {
    expect(message(input)).toContain(expected);
  });

  it('accepts the type names Qwen tool parsers know (float, dict, list, int64) with a warning', () => {
    const parameters = {
      type: 'object',
      properties: {
        ratio: { type: 'float' },
        meta: { type: 'dict' },
        tags: { type: ['list', 'null'], items: { type: 'str' } },
        id: { type: 'int64' },
        type: { type: 'string' },
      },
    };
    const { tools, warnings } = validateToolDefinitions([{ ...ok, parameters }], 'tools.json');
    expect(tools[0]!.parameters).toEqual(parameters);
    expect(warnings).toEqual([
      `tools.json: tool #0 'get_weather': field 'parameters' uses "float", "dict", "list", "str", "int64", not a JSON Schema type: kept as written (the model sees it), and values are typed as vLLM types them`,
    ]);
  });

  it('loads an invalid verb with a warning instead of rejecting the set', () => {
    const { tools, warnings } = validateToolDefinitions([{ ...ok, method: 'GE T' }], 'tools.json');
    expect(tools).toHaveLength(1);
    expect(warnings[0]).toContain(
      `tool #0 'get_weather': method "GE T" is not a valid HTTP method`,
    );
  });

  it('checks parameters against the JSON Schema draft they declare, and names one it does not know', () => {
    const schema = (draft: string, extra: Record<string, unknown> = {}) => ({
      $schema: draft,
      type: 'object',
      properties: { city: { type: 'string' } },
      ...extra,
    });
    for (const draft of [
      'https://json-schema.org/draft/2020-12/schema',
      'https://json-schema.org/draft/2019-09/schema',
      'http://json-schema.org/draft-07/schema#',
    ])
      expect(
        validateToolDefinitions([{ ...ok, parameters: schema(draft) }], 't').tools,
      ).toHaveLength(1);
    // 2020-12's own keywords are checked by its meta-schema.
    expect(
      message([
        {
          ...ok,
          parameters: schema('https://json-schema.org/draft/2020-12/schema', { prefixItems: 5 }),
        },
      ]),
    ).toMatch(
      /^tools\.json: tool #0 'get_weather': field 'parameters' is not a valid JSON Schema: /,
    );
    expect(message([{ ...ok, parameters: schema('https://example.com/my-draft') }])).toBe(
      `tools.json: tool #0 'get_weather': field 'parameters' declares a $schema this engine does not know ("https://example.com/my-draft"): JSON Schema draft-07, 2019-09 or 2020-12`,
    );
  });
});

describe('fields a kind of tool does not have', () => {
  it('are warned of, with the field likely meant; comments (_…) and extensions (x-…) are let be', () => {
    const { warnings, tools } = validateToolDefinitions(
      [
        {
          name: 'crm',
          url: 'https://crm.example/{id}',
          method: 'GET',
          client_certifcate: { cert_file: 'a.pem', key_file: 'a.key' },
          timeout: 5,
          _comment: 'the CRM of the front desk',
          'x-owner': 'team-a',
          colour: 'blue',
        },
        { type: 'python', code: 'def f() -> str:\n    return "x"\n', urll: 'x' },
      ],
      'tools.json',
    );
    expect(warnings).toEqual([
      "tools.json: tool #0 'crm': field 'client_certifcate' is not one this kind of tool has, and is ignored (did you mean 'client_certificate'?)",
      "tools.json: tool #0 'crm': field 'timeout' is not one this kind of tool has, and is ignored (did you mean 'timeout_secs'?)",
      "tools.json: tool #0 'crm': field 'colour' is not one this kind of tool has, and is ignored",
      "tools.json: tool #1: field 'urll' is not one this kind of tool has, and is ignored",
    ]);
    expect(tools[0]!.clientCertificate).toBeUndefined();
  });

  it("warn of an end_session tool's request fields, and keep its defaults", () => {
    const { warnings, tools } = validateToolDefinitions(
      [
        {
          type: 'end_session',
          name: 'hang_up',
          url: 'https://crm.example/bye',
          modalities: ['voice'],
        },
      ],
      'tools.json',
    );
    expect(warnings).toEqual([
      "tools.json: tool #0 'hang_up': field 'url' is not one this kind of tool has, and is ignored",
    ]);
    expect(tools[0]).toMatchObject({
      kind: 'end_session',
      name: 'hang_up',
      url: '',
      parameters: { type: 'object', properties: {} },
      modalities: ['voice'],
      description: expect.stringMatching(/^Ends the conversation/),
    });
  });
});
