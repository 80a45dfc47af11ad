import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { sseRawArgumentsCall } from './support/fake-llm.js';
import { McpTestServer, ORDER_SCHEMA, useMcpServer } from './support/mcp-server.js';
import { refusedTools, writeToolsFile } from './support/tools-file.js';
import { callOnce, useClientPerTest, useEngineRig } from './support/turn-harness.js';

/** MCP tools when what comes back, or what goes out, is not an ordinary call. */
describe('MCP tools: faults', () => {
  const mcp = new McpTestServer([
    {
      name: 'history',
      inputSchema: ORDER_SCHEMA,
      answer: (args) => ({
        content: [{ type: 'text', text: `Order ${String(args.order_id)}: ${'event '.repeat(50)}` }],
      }),
    },
    {
      name: 'strict',
      inputSchema: ORDER_SCHEMA,
      answer: () => {
        throw new McpError(ErrorCode.InvalidParams, 'order_id must be 8 digits');
      },
    },
  ]);
  const server = useMcpServer(mcp);
  const rig = useEngineRig(() => ({
    LLM_MODEL: 'm',
    LLM_TOOL_BREAKER_FAILURES: '2',
    LLM_TOOLS_FILE: writeToolsFile([
      { type: 'mcp', name: 'history', url: server.url, result_max_chars: 20 },
      { type: 'mcp', name: 'strict', url: server.url },
    ]),
  }));
  const client = useClientPerTest(rig);
  beforeEach(() => (mcp.calls.length = 0));

  it("cuts a long result to the tool's result_max_chars", async () => {
    const { read } = await callOnce(rig, client.ws, 'history', { order_id: '42' });
    expect(read).toBe('Order 42: event even… [truncated]');
  });

  it('does not call the server with arguments that are not JSON, and tells the model', async () => {
    const script = sseRawArgumentsCall('history', 'order 42');
    const { read } = await callOnce(rig, client.ws, 'history', {}, script);
    expect(read).toBe('Error: tool request failed: arguments are not a JSON object: order 42');
    expect(mcp.calls).toHaveLength(0);
  });

  it('hands the model an error the server answers, which does not count as the server down', async () => {
    for (let i = 0; i < 3; i++) {
      const { read } = await callOnce(rig, client.ws, 'strict', { order_id: '42' });
      expect(read).toContain('order_id must be 8 digits');
    }
    // LLM_TOOL_BREAKER_FAILURES is 2: each call still reached the server.
    expect(mcp.calls).toHaveLength(3);
  });

  it('counts HTTP 5xx answers as the server down, and 4xx answers not', async () => {
    for (let i = 0; i < 3; i++) {
      mcp.failNext = { status: 400, body: 'bad request' };
      expect((await callOnce(rig, client.ws, 'history', { order_id: '1' })).read).toBe(
        'Error: tool request failed: the MCP server answered HTTP 400: bad request',
      );
    }
    expect((await callOnce(rig, client.ws, 'history', { order_id: '2' })).read).toMatch(/^Order 2/);
    for (let i = 0; i < 2; i++) {
      mcp.failNext = { status: 502, body: 'bad gateway' };
      expect((await callOnce(rig, client.ws, 'history', { order_id: '3' })).read).toBe(
        'Error: tool request failed: the MCP server answered HTTP 502: bad gateway',
      );
    }
    // LLM_TOOL_BREAKER_FAILURES is 2: the third is not sent.
    expect((await callOnce(rig, client.ws, 'history', { order_id: '4' })).read).toMatch(
      /^Error: tool request failed: not sent: the service is unavailable \(its last 2 calls failed\)/,
    );
  });
});

/** A URL that is no MCP endpoint: a web page, or another API's JSON, with HTTP 200. */
describe('MCP tools at a URL that is no MCP endpoint', () => {
  const rig = useEngineRig(
    () => ({ LLM_MODEL: 'm' }),
    (req, res) =>
      req.path === '/status'
        ? res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"status":"ok"}')
        : res
            .writeHead(200, { 'Content-Type': 'text/html' })
            .end('<!doctype html><title>Hi</title>'),
  );
  const refusal = (path: string) =>
    refusedTools(rig.engine.httpUrl, [{ type: 'mcp', name: 'x', url: `${rig.toolsUrl}${path}` }]);

  it('is refused in words, not as the SDK reports it', async () => {
    const at = "request body: tool #0 'x': field 'url': cannot list the tools of the MCP server: ";
    const hint = "(is the tool's url the server's MCP endpoint?)";
    expect(await refusal('/')).toBe(
      `${at}the MCP server answered with text/html, not MCP's JSON or event stream ${hint}`,
    );
    expect(await refusal('/status')).toBe(
      `${at}the MCP server's answer is not a JSON-RPC message of MCP ${hint}`,
    );
  });
});
