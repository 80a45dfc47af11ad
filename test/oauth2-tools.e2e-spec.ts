import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { McpTestServer, useMcpServer } from './support/mcp-server.js';
import { TokenServer } from './support/token-server.js';
import { postTools, writeToolsFile } from './support/tools-file.js';
import { callOnce, useClientPerTest, useEngineRig } from './support/turn-harness.js';

/**
 * Tools whose API wants an OAuth 2.0 bearer token (`oauth2`, client credentials): the engine gets
 * one from the token endpoint, shares it between calls, and gets a new one when it is refused.
 */
describe('tools with oauth2', () => {
  const idp = new TokenServer();
  let tokenUrl = '';
  /** Tokens the API no longer takes. */
  const revoked = new Set<string>();
  const seen: string[] = [];
  const api = createServer((req, res) => {
    const auth = req.headers.authorization ?? '';
    seen.push(auth);
    const token = auth.replace(/^Bearer /, '');
    if (!/^tok-\d+$/.test(token) || revoked.has(token))
      return void res.writeHead(401).end('invalid token');
    res.end(`order ${req.url?.split('/').pop()}: shipped (you are ${auth})`);
  });
  let apiUrl = '';
  const mcp = new McpTestServer([
    {
      name: 'whoami',
      answer: (_args, { headers }) => ({
        content: [{ type: 'text', text: `asked with ${String(headers.authorization)}` }],
      }),
    },
  ]);
  const served = useMcpServer(mcp);
  beforeAll(async () => {
    tokenUrl = await idp.start();
    await new Promise<void>((r) => api.listen(0, '127.0.0.1', r));
    apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await idp.stop();
    await new Promise((r) => api.close(r));
  });
  const oauth2 = (secret = '${TOOL_SECRET_IDP}') => ({
    token_url: tokenUrl,
    client_id: 'agent',
    client_secret: secret,
    scope: 'orders',
  });
  /** An OpenAPI document whose operation declares the token endpoint (a clientCredentials flow). */
  const securedSpec = () => {
    const path = join(mkdtempSync(join(tmpdir(), 'engine-spec-')), 'orders.json');
    const getOrder = {
      operationId: 'getOrder',
      summary: 'Status of an order',
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      security: [{ idp: ['orders.read'] }],
      responses: { 200: { description: 'ok' } },
    };
    const flows = { clientCredentials: { tokenUrl, scopes: { 'orders.read': 'read orders' } } };
    const doc = {
      openapi: '3.0.3',
      info: { title: 'Orders', version: '1' },
      servers: [{ url: apiUrl }],
      paths: { '/orders/{id}': { get: getOrder } },
      components: { securitySchemes: { idp: { type: 'oauth2', flows } } },
    };
    writeFileSync(path, JSON.stringify(doc));
    return path;
  };
  const rig = useEngineRig(() => ({
    LLM_MODEL: 'm',
    TOOL_SECRET_IDP: 's3cret:&',
    TOOL_SECRET_WRONG: 'not-the-secret',
    LLM_TOOLS_FILE: writeToolsFile([
      { name: 'order', url: `${apiUrl}/orders/{id}`, method: 'GET', oauth2: oauth2() },
      {
        type: 'openapi',
        spec: securedSpec(),
        operation: 'getOrder',
        oauth2: { client_id: 'agent', client_secret: '${TOOL_SECRET_IDP}' },
      },
      { type: 'mcp', name: 'whoami', url: served.url, oauth2: oauth2() },
      {
        name: 'locked_out',
        url: `${apiUrl}/orders/{id}`,
        method: 'GET',
        oauth2: oauth2('${TOOL_SECRET_WRONG}'),
      },
    ]),
  }));
  const client = useClientPerTest(rig);

  it('calls the API with a bearer token, one token for many calls, never shown to the model', async () => {
    const before = idp.requests.length;
    const first = await callOnce(rig, client.ws, 'order', { id: 'A1' });
    expect(first.read).toBe('order A1: shipped (you are Bearer [secret])');
    expect(seen.at(-1)).toMatch(/^Bearer tok-\d+$/);
    const second = await callOnce(rig, client.ws, 'order', { id: 'A2' });
    expect(second.read).toBe('order A2: shipped (you are Bearer [secret])');
    expect(idp.requests.length - before).toBeLessThanOrEqual(1);
    expect(idp.requests.at(-1)!.form.get('scope')).toBe('orders');
  });

  it('gets a new token when the API refuses the one it has, and the call goes through', async () => {
    await callOnce(rig, client.ws, 'order', { id: 'B1' });
    const used = seen.at(-1)!.replace('Bearer ', '');
    revoked.add(used);
    const { read, result } = await callOnce(rig, client.ws, 'order', { id: 'B2' });
    expect(result).toMatchObject({ ok: true });
    expect(read).toBe('order B2: shipped (you are Bearer [secret])');
    expect(seen.slice(-2)).toEqual([`Bearer ${used}`, expect.not.stringContaining(used)]);
  });

  it('sends the token to an MCP server, masked in what the model reads', async () => {
    const { read } = await callOnce(rig, client.ws, 'whoami');
    expect(read).toBe('asked with Bearer [secret]');
    expect(mcp.calls.at(-1)!.headers.authorization).toMatch(/^Bearer tok-\d+$/);
  });

  it("takes an OpenAPI operation's token endpoint and scope from its security", async () => {
    const { read } = await callOnce(rig, client.ws, 'getOrder', { id: 'E5' });
    expect(read).toBe('order E5: shipped (you are Bearer [secret])');
    expect(idp.requests.at(-1)!.form.get('scope')).toBe('orders.read');
    const refused = await postTools(rig.engine.httpUrl, [
      {
        type: 'openapi',
        spec: join(process.cwd(), 'test/fixtures/openapi/orders.yaml'),
        operation: 'getOrder',
        oauth2: { client_id: 'agent', client_secret: '${TOOL_SECRET_IDP}' },
      },
    ]);
    expect(((await refused.json()) as { message: string }).message).toBe(
      "request body: tool #0: field 'oauth2.token_url' is required: the operation's security declares no OAuth 2.0 clientCredentials flow to take it from",
    );
  });

  it('gets a new token when the MCP server refuses the one it has', async () => {
    await callOnce(rig, client.ws, 'whoami');
    const used = mcp.calls.at(-1)!.headers.authorization;
    const issued = idp.issued;
    mcp.failNext = { status: 401, body: 'token revoked' };
    const { read } = await callOnce(rig, client.ws, 'whoami');
    expect(read).toBe('asked with Bearer [secret]');
    expect(idp.issued).toBe(issued + 1);
    expect(mcp.calls.at(-1)!.headers.authorization).not.toBe(used);
  });

  it('tells the model when the token endpoint gives no token', async () => {
    const { read } = await callOnce(rig, client.ws, 'locked_out', { id: 'C1' });
    expect(read).toBe(
      `Error: tool request failed: cannot get an access token from the token endpoint: HTTP 401: {"error":"invalid_client"}`,
    );
    const metrics = await (await fetch(`${rig.engine.httpUrl}/metrics`)).text();
    expect(metrics).toMatch(/agent_engine_oauth2_token_requests_total\{outcome="failed"\} 1\b/);
    expect(metrics).toMatch(/agent_engine_oauth2_token_requests_total\{outcome="ok"\} [1-9]/);
  });

  it('refuses an oauth2 tool that also sets Authorization, or whose host the caller chooses', async () => {
    const refused = async (definition: Record<string, unknown>) =>
      ((await (await postTools(rig.engine.httpUrl, [definition])).json()) as { message: string })
        .message;
    expect(
      await refused({
        name: 'x',
        url: `${apiUrl}/x`,
        headers: { authorization: 'Bearer fixed' },
        oauth2: oauth2(),
      }),
    ).toBe(
      "request body: tool #0 'x': field 'headers' sets Authorization, which 'oauth2' sets: give one or the other",
    );
    expect(await refused({ name: 'x', url: 'http://{host}/x', oauth2: oauth2() })).toBe(
      "request body: tool #0 'x': field 'url' has a placeholder in its host: a tool that sends a token must name its host",
    );
    expect(await refused({ name: 'x', url: `${apiUrl}/x`, oauth2: { token_url: tokenUrl } })).toBe(
      'request body: tool #0 \'x\': field \'oauth2.client_id\' is required: expected an object with token_url (an http(s) URL), client_id and client_secret, and optionally scope, audience and client_auth ("basic" or "body")',
    );
  });
});
