import { useBuiltEngines } from './support/built-engine.js';
import { FakeLlm, sseStructuredCalls, sseText } from './support/fake-llm.js';
import { McpTestServer, ORDER_SCHEMA } from './support/mcp-server.js';
import { RecordingServer } from './support/recording-server.js';
import { weatherTool, writeToolsFile } from './support/tools-file.js';
import { TEST_CA, testTls } from './support/tls.js';
import { WsClient } from './support/ws-client.js';

const tls = testTls();
const UNTRUSTED = 'UNABLE_TO_VERIFY_LEAF_SIGNATURE';

/**
 * The LLM server, a tool's API and an MCP server behind HTTPS with certificates of an enterprise's
 * own CA: the engine trusts them once NODE_EXTRA_CA_CERTS names the CA (Node reads it at
 * start-up), and says which certificate it did not trust otherwise.
 */
describe('services whose certificates a private CA signed', () => {
  const secureLlm = new FakeLlm(tls);
  const plainLlm = new FakeLlm();
  const api = new RecordingServer(tls);
  const mcp = new McpTestServer(
    [
      {
        name: 'lookup_order',
        description: 'Status of an order.',
        inputSchema: ORDER_SCHEMA,
        answer: (args) => ({ content: [{ type: 'text', text: `Order ${String(args.order_id)}` }] }),
      },
    ],
    { tls },
  );
  let base: Record<string, string>;
  let secureUrl = '';
  let plainUrl = '';
  const startEngine = useBuiltEngines();
  beforeAll(async () => {
    api.respond((req, res) => res.end(`${req.path.slice(1)}: sunny`));
    const file = writeToolsFile([
      weatherTool(await api.start()),
      { type: 'mcp', name: 'lookup_order', url: await mcp.start() },
    ]);
    base = { PORT: '0', LLM_MODEL: 'm', LLM_TOOLS_FILE: file };
    secureUrl = await secureLlm.start();
    plainUrl = await plainLlm.start();
  });
  afterAll(async () => {
    await Promise.all([secureLlm.stop(), plainLlm.stop(), api.stop(), mcp.stop()]);
  });
  const start = async (env: Record<string, string>) => {
    const engine = await startEngine({ ...base, ...env });
    return { engine, ws: await WsClient.connect(engine.wsUrl) };
  };
  const toolRead = (llm: FakeLlm) =>
    llm.requests.at(-1)!.body.messages.findLast((m: any) => m.role === 'tool').content;

  it('reaches all three with NODE_EXTRA_CA_CERTS', async () => {
    const { ws } = await start({
      LLM_BASE_URL: secureUrl,
      NODE_EXTRA_CA_CERTS: TEST_CA,
    });
    for (const [name, args, read] of [
      ['get_weather', { city: 'Oslo' }, 'Oslo: sunny'],
      ['lookup_order', { order_id: '7' }, 'Order 7'],
    ] as const) {
      secureLlm.enqueue(
        sseStructuredCalls([{ id: 'call_1', name, arguments: args }]),
        sseText(['Done.']),
      );
      const msgs = await ws.turn('go');
      expect(msgs.find((m) => m.type === 'tool_result')).toMatchObject({ ok: true });
      expect(msgs.at(-1)).toEqual({ type: 'assistant_end', text: 'Done.' });
      expect(toolRead(secureLlm)).toBe(read);
    }
    ws.close();
  }, 60_000);

  it('says without it which server has a certificate it does not trust, and the logs say what to do', async () => {
    const { engine, ws } = await start({ LLM_BASE_URL: secureUrl });
    expect(await ws.turn('hello')).toEqual([
      {
        type: 'error',
        code: 'llm_failed',
        message: `LLM request failed: the LLM server's TLS certificate is not trusted (${UNTRUSTED}; a private CA's certificates are trusted once NODE_EXTRA_CA_CERTS names its PEM file)`,
      },
      { type: 'assistant_end', text: '' },
    ]);
    ws.close();

    const plain = await start({ LLM_BASE_URL: plainUrl });
    plainLlm.enqueue(
      sseStructuredCalls([{ id: 'call_1', name: 'get_weather', arguments: { city: 'Oslo' } }]),
      sseText(['Sorry.']),
    );
    await plain.ws.turn('weather?');
    expect(toolRead(plainLlm)).toBe(
      `Error: tool request failed: the TLS certificate of the tool's server is not trusted (${UNTRUSTED})`,
    );
    const offered = await fetch(`${plain.engine.url}/api/tools/lookup_order/offered`);
    expect(((await offered.json()) as { message: string }).message).toContain(
      `cannot list the tools of the MCP server: the TLS certificate of the MCP server is not trusted (${UNTRUSTED})`,
    );
    expect(plain.engine.output).toContain('NODE_EXTRA_CA_CERTS names its PEM file');
    plain.ws.close();
    expect(engine.output).toContain(`TLS certificate is not trusted (${UNTRUSTED}`);
  }, 60_000);
});
