import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolDefinitionError } from '../definition-error.js';
import { expandOpenApi } from './openapi-expand.js';
import { expandRefusal } from '../../../test/support/openapi-expand.js';

const options = { baseDir: 'test/fixtures/openapi', timeoutMs: 1000 };
const entry = { type: 'openapi', spec: 'orders.yaml', operation: 'getOrder' };

const refusal = (def: Record<string, unknown>) => expandRefusal([def], options);

describe('expandOpenApi', () => {
  it('makes the operation an HTTP tool and keeps the entry as given', async () => {
    const out = await expandOpenApi(
      [{ name: 'other', url: 'http://h/' }, entry],
      'tools.json',
      options,
    );
    const [plain, made] = out.definitions as Record<string, unknown>[];
    expect(plain).toEqual({ name: 'other', url: 'http://h/' });
    expect(made).toMatchObject({
      name: 'getOrder',
      method: 'GET',
      url: 'https://eu.orders.example.com/v1/orders/{order_id}',
    });
    expect(out.origins.get(1)).toEqual(entry);
    expect(out.pending.size).toBe(0);
    expect(out.warnings).toEqual([]);
  });

  it.each([
    [{ type: 'openapi', operation: 'getOrder' }, "tools.json: tool #0: field 'spec' is required"],
    [
      { type: 'openapi', spec: 'orders.yaml' },
      "tools.json: tool #0: field 'operation' is required",
    ],
    [{ ...entry, operation: 7 }, "tools.json: tool #0: field 'operation' is invalid"],
    [{ ...entry, base_url: 'ftp://x' }, "tools.json: tool #0: field 'base_url' is invalid"],
    [{ ...entry, name: 'a b' }, "tools.json: tool #0 'a b': field 'name' is invalid"],
    [
      { ...entry, method: 'POST' },
      "tools.json: tool #0: field 'method' is not used by OpenAPI tools: the operation gives it",
    ],
    [{ ...entry, code: 'x' }, "tools.json: tool #0: field 'code' is not used by OpenAPI tools"],
  ])('refuses %j naming the file, the tool and the field', async (def, message) => {
    expect(await refusal(def)).toContain(message);
  });

  it('refuses a document that cannot be read, unless told to leave its tool pending (URLs only)', async () => {
    expect(await refusal({ ...entry, spec: 'missing.yaml' })).toMatch(
      /^tools\.json: tool #0: field 'spec' cannot be read as an OpenAPI document \(.*missing\.yaml\)/,
    );
    const deferred = { ...options, defer: 'unreachable' as const };
    await expect(
      expandOpenApi([{ ...entry, spec: 'missing.yaml' }], 'f', deferred),
    ).rejects.toThrow(ToolDefinitionError);
    const url = { ...entry, spec: 'http://127.0.0.1:9/openapi.json' };
    const out = await expandOpenApi([url], 'tools.json', deferred);
    expect(out.pending.get(0)).toMatch(/^its document cannot be read as an OpenAPI document/);
    expect(out.definitions).toEqual([
      expect.objectContaining({
        name: 'getOrder',
        url: 'http://openapi-document-pending.invalid/',
      }),
    ]);
    const unnamed = { ...url, operation: 'GET /orders/{order_id}' };
    await expect(expandOpenApi([unnamed], 'tools.json', deferred)).rejects.toThrow(
      "field 'name' is required: the document cannot be read",
    );
  });

  it('warns of a body offered otherwise than the document has it, unless the entry gives parameters', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engine-spec-'));
    const freeForm = { content: { 'application/json': { schema: { type: 'object' } } } };
    const doc = {
      openapi: '3.1.0',
      info: { title: 'Notes', version: '1' },
      servers: [{ url: 'https://notes.example' }],
      paths: { '/notes': { post: { operationId: 'addNote', requestBody: freeForm } } },
    };
    writeFileSync(join(dir, 'notes.json'), JSON.stringify(doc));
    const note = { type: 'openapi', spec: 'notes.json', operation: 'addNote' };
    const parameters = { type: 'object', properties: { text: { type: 'string' } } };
    const out = await expandOpenApi([note, { ...note, name: 'own', parameters }], 'tools.json', {
      ...options,
      baseDir: dir,
    });
    expect(out.warnings).toEqual([
      `tools.json: tool #0 'addNote': operation "addNote": its JSON request body declares no properties, so the model is offered none: give 'parameters' to name them`,
    ]);
  });

  it("lets the entry's own description, headers and scope win over what the document gives", async () => {
    const cancel = { type: 'openapi', spec: 'orders.yaml', operation: 'cancelOrder' };
    const [fromDocument, own] = (
      await expandOpenApi(
        [
          cancel,
          { ...cancel, name: 'cancel', description: 'Ours.', headers: { 'x-reason': 'asked' } },
        ],
        'tools.json',
        options,
      )
    ).definitions as Record<string, unknown>[];
    expect(fromDocument).toMatchObject({
      description: 'Cancels an order',
      headers: { 'X-Reason': '{X-Reason}', 'X-Client': 'voice-agent' },
      header_arguments: ['X-Reason'],
      parameters: { required: ['order_id', 'X-Reason'] },
    });
    // A header the entry sets, in any case, replaces the operation's, whose argument goes.
    expect(own).toMatchObject({
      description: 'Ours.',
      headers: { 'x-reason': 'asked', 'X-Client': 'voice-agent' },
      parameters: { properties: { order_id: { type: 'string' } }, required: ['order_id'] },
    });
    expect(own).not.toHaveProperty('header_arguments');
    expect(Object.keys(own!.headers as object)).toEqual(['X-Client', 'x-reason']);
    expect(Object.keys((own!.parameters as any).properties)).toEqual(['order_id']);

    const dir = mkdtempSync(join(tmpdir(), 'engine-spec-'));
    const flows = { clientCredentials: { tokenUrl: 'https://idp.example/token', scopes: {} } };
    const secured = {
      openapi: '3.0.3',
      info: { title: 'Orders', version: '1' },
      servers: [{ url: 'https://api.example' }],
      paths: {
        '/orders': {
          get: {
            operationId: 'listOrders',
            security: [{ idp: ['orders.read'] }],
            responses: { 200: { description: 'ok' } },
          },
        },
      },
      components: { securitySchemes: { idp: { type: 'oauth2', flows } } },
    };
    writeFileSync(join(dir, 'secured.json'), JSON.stringify(secured));
    const oauth2 = { client_id: 'agent', client_secret: '${TOOL_SECRET_IDP}' };
    const list = { type: 'openapi', spec: 'secured.json', operation: 'listOrders', oauth2 };
    const [declared, scoped] = (
      await expandOpenApi(
        [list, { ...list, name: 'scoped', oauth2: { ...oauth2, scope: 'orders.all' } }],
        'tools.json',
        { ...options, baseDir: dir },
      )
    ).definitions as { oauth2: Record<string, unknown> }[];
    expect(declared!.oauth2).toMatchObject({
      token_url: 'https://idp.example/token',
      scope: 'orders.read',
    });
    expect(scoped!.oauth2).toMatchObject({
      token_url: 'https://idp.example/token',
      scope: 'orders.all',
    });
  });

  it("keeps an entry's own token URL as it is given", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engine-spec-'));
    writeFileSync(join(dir, 'plain.yaml'), readFileSync('test/fixtures/openapi/orders.yaml'));
    const oauth2 = { token_url: 'https://own.idp/token', client_id: 'a', client_secret: 's' };
    const [made] = (
      await expandOpenApi([{ ...entry, spec: 'plain.yaml', oauth2 }], 'tools.json', {
        ...options,
        baseDir: dir,
      })
    ).definitions as { oauth2: Record<string, unknown> }[];
    expect(made!.oauth2).toEqual(oauth2);
  });

  it("words an operation's refusal as a sentence about the field", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engine-spec-'));
    const yaml = readFileSync('test/fixtures/openapi/orders.yaml', 'utf8');
    writeFileSync(
      join(dir, 'relative.yaml'),
      yaml.replace(/^servers:\n( {2}.*\n)+/m, 'servers: [{ url: /v1 }]\n'),
    );
    const refused = await expandOpenApi([{ ...entry, spec: 'relative.yaml' }], 'tools.json', {
      ...options,
      baseDir: dir,
    }).catch((e: Error) => e.message);
    expect(refused).toBe(
      `tools.json: tool #0: field 'base_url' is required: the spec's servers give no absolute http(s) URL ("/v1")`,
    );
    expect(await refusal({ ...entry, operation: 'nope' })).toMatch(
      /^tools\.json: tool #0: field 'operation': the spec has no operation "nope"/,
    );
  });

  it('resolves a relative server URL against the URL the document was read from', async () => {
    const yaml = readFileSync('test/fixtures/openapi/orders.yaml', 'utf8');
    const server = createServer((_req, res) =>
      res.end(yaml.replace(/^servers:\n( {2}.*\n)+/m, 'servers: [{ url: ../v2 }]\n')),
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const out = await expandOpenApi(
        [{ ...entry, spec: `${base}/specs/orders.yaml` }],
        'tools.json',
        options,
      );
      expect(out.definitions).toEqual([
        expect.objectContaining({ url: `${base}/v2/orders/{order_id}` }),
      ]);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('returns anything but an array as it is, for the validation to refuse', async () => {
    const out = await expandOpenApi({ not: 'a list' }, 'tools.json', options);
    expect(out.definitions).toEqual({ not: 'a list' });
  });
});

describe("expandOpenApi: an entry's api_key, where the operation's security puts it", () => {
  const weather = { type: 'openapi', spec: 'weather.yaml' };
  const made = async (operation: string, apiKey: string | Record<string, string>) => {
    const out = await expandOpenApi(
      [{ ...weather, operation, api_key: apiKey }],
      't.json',
      options,
    );
    return (out.definitions as Record<string, unknown>[])[0]!;
  };

  it('in the query (the document-wide scheme), a written key percent-encoded, a reference kept', async () => {
    expect((await made('getForecast', '${TOOL_SECRET_WEATHER}')).url).toBe(
      'https://api.weather.example.com/v2/forecast?appid=${TOOL_SECRET_WEATHER}',
    );
    expect((await made('getForecast', 'k/1 {x}')).url).toBe(
      'https://api.weather.example.com/v2/forecast?appid=k%2F1%20%7Bx%7D',
    );
    // The query parameter the key fills is no argument: the query holds it once.
    expect((await made('getForecast', 'k')).parameters).toEqual({
      type: 'object',
      properties: { q: { type: 'string' } },
      required: ['q'],
    });
  });

  it('in a header, a cookie or as a bearer token; the query parameters of a POST as query_arguments', async () => {
    // The first requirement that takes one key: HTTP basic does not (a user and a password).
    expect((await made('getAlerts', 'k-1')).headers).toEqual({ 'X-API-Key': 'k-1' });
    expect((await made('getHistory', 'k-1')).headers).toEqual({ Cookie: 'sid=k-1' });
    expect(await made('renameStation', '${TOOL_SECRET_W}')).toMatchObject({
      url: 'https://api.weather.example.com/v2/stations/{id}',
      headers: { Authorization: 'Bearer ${TOOL_SECRET_W}' },
      query_arguments: ['notify'],
    });
  });

  it('gives keys asked for together by scheme name, and refuses one key for them', async () => {
    const keyed = await made('searchRecipes', { appId: 'a 1', appKey: '${TOOL_SECRET_RECIPES}' });
    expect(keyed.url).toBe(
      'https://api.weather.example.com/v2/recipes?app_id=a%201&app_key=${TOOL_SECRET_RECIPES}',
    );
    expect(await refusal({ ...weather, operation: 'searchRecipes', api_key: 'k' })).toBe(
      `tools.json: tool #0: field 'api_key' is one key, and the operation's security asks for 2 together (appId, appKey): give them by scheme name, {"appId": "…", "appKey": "…"}`,
    );
    expect(
      await refusal({ ...weather, operation: 'searchRecipes', api_key: { appSecret: 'k' } }),
    ).toBe(
      "tools.json: tool #0: field 'api_key.appSecret' names no apiKey or HTTP bearer scheme of the document (it has: appid, headerKey, sessionCookie, bearer, appId, appKey)",
    );
  });

  it("lets the entry's own headers win, and refuses a key the operation has no place for", async () => {
    const out = await expandOpenApi(
      [{ ...weather, operation: 'getAlerts', api_key: 'k-1', headers: { 'X-API-Key': 'mine' } }],
      't.json',
      options,
    );
    expect((out.definitions as Record<string, unknown>[])[0]!.headers).toEqual({
      'X-API-Key': 'mine',
    });
    expect(await refusal({ ...weather, operation: 'getStatus', api_key: 'k-1' })).toBe(
      "tools.json: tool #0: field 'api_key' has nowhere to go: the operation's security declares no apiKey or HTTP bearer scheme (give 'headers')",
    );
    expect(await refusal({ ...weather, operation: 'getStatus', api_key: '' })).toContain(
      "field 'api_key' is invalid",
    );
  });
});
