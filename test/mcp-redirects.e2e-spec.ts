import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpTestServer, ORDER_SCHEMA } from './support/mcp-server.js';
import { writeToolsFile } from './support/tools-file.js';
import { callOnce, useClientPerTest, useEngineRig } from './support/turn-harness.js';

const lookup = (answer: string) => ({
  name: 'lookup_order',
  inputSchema: ORDER_SCHEMA,
  answer: (args: Record<string, unknown>) => ({
    content: [{ type: 'text', text: `${answer} ${String(args.order_id)}` }],
  }),
});

/**
 * MCP servers behind a redirect (a server moved, a path given a trailing slash): the engine
 * follows it, and a redirect to another host gets none of the tool's headers nor its token.
 */
describe('MCP servers answering with a redirect', () => {
  const here = new McpTestServer([lookup('here')]);
  const elsewhere = new McpTestServer([lookup('elsewhere')]);
  const urls = { here: '', elsewhere: '', redirector: '' };
  /** 307 (method and body kept) from /same to the server on this host, from /away to the other host. */
  const redirector = createServer((req, res) => {
    const to = req.url!.startsWith('/same') ? urls.here : urls.elsewhere;
    req.resume();
    res.writeHead(307, { Location: to }).end();
  });
  beforeAll(async () => {
    urls.here = await here.start();
    urls.elsewhere = await elsewhere.start(0, '127.0.0.2');
    await new Promise<void>((r) => redirector.listen(0, '127.0.0.1', r));
    urls.redirector = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await Promise.all([here.stop(), elsewhere.stop()]);
    await new Promise((r) => redirector.close(r));
  });
  const headers = {
    'X-Api-Key': 'key-${TOOL_SECRET_ORDERS}',
    Authorization: 'Bearer ${TOOL_SECRET_ORDERS}',
  };
  const rig = useEngineRig(() => ({
    LLM_MODEL: 'm',
    TOOL_SECRET_ORDERS: 's3cr3t',
    LLM_TOOLS_FILE: writeToolsFile([
      {
        type: 'mcp',
        name: 'same_host',
        tool: 'lookup_order',
        url: `${urls.redirector}/same`,
        headers,
      },
      {
        type: 'mcp',
        name: 'other_host',
        tool: 'lookup_order',
        url: `${urls.redirector}/away`,
        headers,
      },
    ]),
  }));
  const client = useClientPerTest(rig);

  it("follows a redirect on the same host with the tool's headers", async () => {
    expect((await callOnce(rig, client.ws, 'same_host', { order_id: '1' })).read).toBe('here 1');
    expect(here.calls.at(-1)!.headers).toMatchObject({
      'x-api-key': 'key-s3cr3t',
      authorization: 'Bearer s3cr3t',
    });
  });

  it('follows a redirect to another host without them', async () => {
    expect((await callOnce(rig, client.ws, 'other_host', { order_id: '2' })).read).toBe(
      'elsewhere 2',
    );
    const sent = elsewhere.calls.at(-1)!.headers;
    expect(sent['x-api-key']).toBeUndefined();
    expect(sent.authorization).toBeUndefined();
    expect(JSON.stringify(sent)).not.toContain('s3cr3t');
  });
});
