import { McpTestServer, ORDER_SCHEMA } from './support/mcp-server.js';
import { useServerDown, useServerDownRig } from './support/mcp-server-down.js';
import { postTools, refusedTools, writeToolsFile } from './support/tools-file.js';
import { callOnce, offeredNames, useClientPerTest, useEngineRig } from './support/turn-harness.js';
import { untilAsync } from './support/waiting.js';

/**
 * An MCP server that is down when the engine reads its tools file: the engine starts with every
 * other tool, and offers that server's tools once a later try lists them.
 */
describe('MCP tools whose server is down at start-up', () => {
  const { down, rig, client, health } = useServerDownRig((down) => [down.definition()]);
  const offered = () => offeredNames(rig, client.ws);

  it('starts without them, says so in /health, and offers them once the server answers', async () => {
    expect(await offered()).toEqual(['get_weather']);
    expect(await health()).toEqual({ count: 2, source: 'file', unavailable: ['lookup_order'] });
    // An admin asking for it hears why it is not offered.
    const asked = await fetch(`${rig.engine.httpUrl}/api/tools/lookup_order/offered`);
    expect(asked.status).toBe(404);
    expect(((await asked.json()) as { message: string }).message).toMatch(
      /^tool 'lookup_order' is not offered to the model yet: cannot list the tools of the MCP server: cannot reach the MCP server \(ECONNREFUSED\)$/,
    );
    await down.mcp.start(down.port);
    await untilAsync(async () => (await offered()).includes('lookup_order'), 'the tool listed');
    expect(await offered()).toEqual(['get_weather', 'lookup_order']);
    expect((await health()).unavailable).toEqual([]);
    expect((await callOnce(rig, client.ws, 'lookup_order', { order_id: '3' })).read).toBe(
      'Order 3',
    );
  });
});

/** Definitions of MCP tools checked against their server when they are installed. */
describe('MCP tool definitions', () => {
  const answer = () => ({ content: [] });
  const mcp = new McpTestServer([
    { name: 'lookup_order', inputSchema: ORDER_SCHEMA, answer },
    { name: 'orders.cancel', inputSchema: ORDER_SCHEMA, answer },
  ]);
  let mcpUrl = '';
  beforeAll(async () => {
    mcpUrl = await mcp.start();
  });
  afterAll(() => mcp.stop());
  const rig = useEngineRig(() => ({ LLM_MODEL: 'm', TOOL_SECRET_MCP_TOKEN: 's3cr3t-token' }));

  it('refuses definitions naming a tool the server lacks, a server it cannot reach, or fields that do not apply', async () => {
    const refused = (definition: Record<string, unknown>) =>
      refusedTools(rig.engine.httpUrl, [{ type: 'mcp', ...definition }]);
    expect(await refused({ name: 'nope', url: mcpUrl })).toBe(
      "request body: tool #0 'nope': field 'name': the MCP server has no tool 'nope' (it lists: lookup_order, orders.cancel)",
    );
    expect(await refused({ name: 'x', url: 'http://127.0.0.1:1/mcp' })).toMatch(
      /^request body: tool #0 'x': field 'url': cannot list the tools of the MCP server: /,
    );
    expect(await refused({ name: 'x', url: mcpUrl, method: 'GET' })).toMatch(
      /^request body: tool #0 'x': field 'method' is not used by MCP tools/,
    );
    expect(await refused({ name: 'x', url: mcpUrl, per_session: 'yes' })).toMatch(
      /^request body: tool #0 'x': field 'per_session' is invalid: expected true or false$/,
    );
    expect(await refused({ name: 'x', url: mcpUrl, max_sessions: 3 })).toBe(
      `request body: tool #0 'x': field 'max_sessions' limits the sessions of "per_session": true, which the tool does not have`,
    );
    expect(await refused({ name: 'x', url: mcpUrl, sampling_max_tokens: 100 })).toBe(
      `request body: tool #0 'x': field 'sampling_max_tokens' limits the completions of "sampling": true, which the tool does not have`,
    );
    expect(await refused({ name: 'x', url: mcpUrl, sampling: true, sampling_max_tokens: 0 })).toBe(
      `request body: tool #0 'x': field 'sampling_max_tokens' is invalid: expected an integer from 1 to 32768`,
    );
    expect(await refused({ name: 'x', url: `${mcpUrl}/{order_id}` })).toMatch(
      /field 'url' has an \{argument\} placeholder/,
    );
    expect(
      await refused({ name: 'x', url: mcpUrl, headers: { 'X-C': '${session.customer}' } }),
    ).toMatch(/field 'parameters' is required with session variables/);
    // As for HTTP tools: a session may not choose where the secrets go, and header names are checked.
    const given = { description: 'd', parameters: { type: 'object', properties: {} } };
    expect(
      await refused({
        name: 'x',
        url: 'http://${session.host}/mcp',
        headers: { Authorization: 'Bearer ${TOOL_SECRET_MCP_TOKEN}' },
        ...given,
      }),
    ).toMatch(
      /field 'url' has a placeholder in its host: a tool that sends secrets must name its host/,
    );
    expect(
      await refused({ name: 'x', url: mcpUrl, headers: { 'Bad Name': 'v' }, ...given }),
    ).toMatch(/field 'headers' has an invalid header name "Bad Name"/);
    // Without secrets either: MCP requests do not go through the HTTP tools' address guard.
    expect(await refused({ name: 'x', url: 'http://${session.host}/mcp', ...given })).toMatch(
      /field 'url' has a session variable in its host: an MCP tool names its server/,
    );
  });

  it('names at most 50 of the tools a server lists when it lacks the one asked for, and says when it lists none', async () => {
    const many = new McpTestServer(
      Array.from({ length: 60 }, (_, i) => ({ name: `t${i}`, inputSchema: ORDER_SCHEMA, answer })),
    );
    const none = new McpTestServer([]);
    try {
      const refusal = async (url: string) =>
        (
          (await (
            await postTools(rig.engine.httpUrl, [{ type: 'mcp', name: 'nope', url }])
          ).json()) as {
            message: string;
          }
        ).message;
      const names = Array.from({ length: 50 }, (_, i) => `t${i}`).join(', ');
      expect(await refusal(await many.start())).toBe(
        `request body: tool #0 'nope': field 'name': the MCP server has no tool 'nope' (it lists: ${names}, … (60 in all))`,
      );
      expect(await refusal(await none.start())).toBe(
        "request body: tool #0 'nope': field 'name': the MCP server has no tool 'nope' (it lists: none)",
      );
    } finally {
      await many.stop();
      await none.stop();
    }
  });

  it('lists the tools of a server once for all the tools taken from it', async () => {
    const before = mcp.lists;
    const res = await postTools(rig.engine.httpUrl, [
      { type: 'mcp', name: 'lookup_order', url: mcpUrl },
      { type: 'mcp', name: 'cancel_order', tool: 'orders.cancel', url: mcpUrl },
    ]);
    expect(res.status).toBe(200);
    expect(mcp.lists).toBe(before + 1);
  });
});

/**
 * One tool changed over the API while another of the set in use waits for its server: the change
 * is made, and the waiting tool, kept as it is, stays pending instead of blocking it.
 */
describe('PUT and DELETE of one tool while another waits for its server', () => {
  const down = useServerDown();
  const waiting = () => down.definition();
  const specDown = {
    type: 'openapi',
    name: 'get_order',
    spec: `http://127.0.0.1:1/openapi.json`,
    operation: 'getOrder',
  };
  const rig = useEngineRig((base) => ({
    LLM_MODEL: 'm',
    LLM_TOOL_BREAKER_COOLDOWN_SECS: '0.3',
    LLM_TOOLS_FILE: writeToolsFile([
      { name: 'get_weather', url: `${base}/{city}`, method: 'GET' },
      waiting(),
      specDown,
    ]),
  }));
  const client = useClientPerTest(rig);
  const api = (method: string, path: string, body?: unknown) =>
    fetch(`${rig.engine.httpUrl}/api/tools${path}`, {
      method,
      headers: { 'Content-Type': 'application/json' },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
  const names = async () =>
    ((await (await api('GET', '')).json()) as { tools: { name: string }[] }).tools.map(
      (t) => t.name,
    );
  const unavailable = async () =>
    ((await (await fetch(`${rig.engine.httpUrl}/health`)).json()) as any).tools.unavailable;

  it('makes the change, keeps the waiting tools pending, and offers them once their server answers', async () => {
    const clock = { name: 'clock', url: `${rig.toolsUrl}/time`, method: 'GET' };
    const dry = await api('PUT', '/clock?dry_run=true', clock);
    expect(dry.status).toBe(200);
    expect((await api('PUT', '/clock', clock)).status).toBe(200);
    expect(await names()).toEqual(['get_weather', 'lookup_order', 'get_order', 'clock']);
    expect((await api('DELETE', '/get_weather')).status).toBe(200);
    expect(await names()).toEqual(['lookup_order', 'get_order', 'clock']);
    expect(await unavailable()).toEqual(['lookup_order', 'get_order']);
    expect(await offeredNames(rig, client.ws)).toEqual(['clock']);
    // A set sent whole is the admin's own: a server it names must answer.
    expect(await refusedTools(rig.engine.httpUrl, [clock, waiting()])).toMatch(
      /^request body: tool #1 'lookup_order': field 'url': cannot list the tools of the MCP server: /,
    );
    // Nor does a PUT of the waiting tool itself go through unchecked.
    expect((await api('PUT', '/lookup_order', waiting())).status).toBe(400);
    await down.mcp.start(down.port);
    // Tried again every second (LLM_TOOL_BREAKER_COOLDOWN_SECS, at least 1 s); a loaded machine
    // may take a few tries.
    await untilAsync(
      async () => (await offeredNames(rig, client.ws)).includes('lookup_order'),
      'the kept tool listed',
      15_000,
    );
    expect(await unavailable()).toEqual(['get_order']);
    expect((await callOnce(rig, client.ws, 'lookup_order', { order_id: '7' })).read).toBe(
      'Order 7',
    );
    // The server drops the tool: kept as it is by a change of another, it waits again.
    await down.mcp.changeTools([]);
    await untilAsync(async () => (await unavailable()).length === 2, 'the tool dropped');
    expect((await api('PUT', '/clock', { ...clock, url: `${rig.toolsUrl}/now` })).status).toBe(200);
    expect(await unavailable()).toEqual(['lookup_order', 'get_order']);
  });
});
