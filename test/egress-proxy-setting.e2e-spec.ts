import { resolve } from 'node:path';
import { useBuiltEngine } from './support/built-engine.js';
import { EgressProxy } from './support/egress-proxy.js';
import { Engine } from './support/engine.js';
import { FakeLlm, sseStructuredCalls, sseText } from './support/fake-llm.js';
import { McpTestServer, ORDER_SCHEMA } from './support/mcp-server.js';
import { OtlpCollector } from './support/otlp-collector.js';
import { RecordingServer } from './support/recording-server.js';
import { TEST_CA, testTls } from './support/tls.js';
import { TokenServer } from './support/token-server.js';
import { weatherTool, writeToolsFile } from './support/tools-file.js';
import { WsClient } from './support/ws-client.js';
import { until } from './support/waiting.js';

/** The code tool: one request through the proxy, one to loopback that the address policy refuses. */
const BOTH = `import requests

def fetch_both(city: str) -> list:
    """Weather of a city, twice."""
    said = [requests.get("API/" + city).text]
    try:
        requests.get("LOOPBACK/" + city)
        said.append("reached")
    except requests.ConnectionError as e:
        said.append(str(e))
    return said
`;

const CREDENTIALS = 'agent:p%40ss';
const STDIO_SERVER = resolve('test/support/mcp-stdio-server.mjs');
const as = (url: string, host: string) => url.replace('127.0.0.1', host);

/**
 * EGRESS_PROXY: a network whose only way out is an enterprise's egress proxy, which alone resolves
 * outside names. Every client of the engine goes through it — the LLM's model list and completions,
 * an HTTP tool and its token endpoint, an HTTPS tool through a tunnel, an MCP server, a code tool —
 * with the proxy's credentials; EGRESS_NO_PROXY's servers are reached directly; a tunnel the
 * proxy refuses, and a code tool's request to a private address, are said as what they are.
 */
describe('EGRESS_PROXY', () => {
  const llm = new FakeLlm();
  const api = new RecordingServer();
  const secure = new RecordingServer(testTls());
  const tokens = new TokenServer();
  const collector = new OtlpCollector();
  const mcp = new McpTestServer([
    {
      name: 'lookup_order',
      description: 'Status of an order.',
      inputSchema: ORDER_SCHEMA,
      answer: (args) => ({
        content: [{ type: 'text', text: `Order ${String(args.order_id)}: sent` }],
      }),
    },
  ]);
  const outside = { 'llm.example': '127.0.0.1', 'api.example': '127.0.0.1' };
  const proxy = new EgressProxy({
    hosts: {
      ...outside,
      'idp.example': '127.0.0.1',
      'mcp.example': '127.0.0.1',
      'otel.example': '127.0.0.1',
    },
    denied: ['denied.example'],
    credentials: 'agent:p@ss',
  });
  let urls: Record<string, string>;
  const engine = useBuiltEngine(async () => {
    api.respond((req, res) => res.end(`${req.path.slice(1)}: sunny`));
    secure.respond((req, res) => res.end(`${req.path.slice(1)}: clear`));
    urls = {
      proxy: await proxy.start(CREDENTIALS),
      llm: as(await llm.start(), 'llm.example'),
      api: await api.start(),
      secure: (await secure.start()).replace('127.0.0.1', 'localhost'),
      tokens: as(await tokens.start(), 'idp.example'),
      mcp: as(await mcp.start(), 'mcp.example'),
      collector: as(await collector.start(), 'otel.example'),
    };
    const outsideApi = as(urls.api!, 'api.example');
    const file = writeToolsFile([
      {
        ...weatherTool(outsideApi),
        oauth2: { token_url: urls.tokens, client_id: 'agent', client_secret: 's3cret:&' },
      },
      { ...weatherTool(urls.secure!), name: 'secure_weather' },
      { ...weatherTool(urls.api!), name: 'direct_weather' },
      { ...weatherTool('https://denied.example'), name: 'denied_weather' },
      { type: 'mcp', name: 'lookup_order', url: urls.mcp },
      { type: 'mcp', name: 'whoami', command: process.execPath, args: [STDIO_SERVER] },
      {
        type: 'python',
        code: BOTH.replace('API', outsideApi).replace('LOOPBACK', as(urls.api!, 'localhost')),
      },
    ]);
    return {
      LLM_BASE_URL: urls.llm!,
      LLM_TOOLS_FILE: file,
      EGRESS_PROXY: urls.proxy!,
      EGRESS_NO_PROXY: '127.0.0.1',
      NODE_EXTRA_CA_CERTS: TEST_CA,
      CODE_TOOLS_WORKERS: '1',
      OTEL_EXPORTER_OTLP_ENDPOINT: urls.collector!,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '20',
    };
  });
  afterAll(async () => {
    await Promise.all([
      llm.stop(),
      api.stop(),
      secure.stop(),
      tokens.stop(),
      mcp.stop(),
      collector.stop(),
    ]);
    await proxy.stop();
  });

  it("sends every client's requests through the proxy, with its credentials", async () => {
    const ws = await WsClient.connect(engine().wsUrl);
    llm.enqueue(
      sseStructuredCalls([
        { id: 'call_1', name: 'get_weather', arguments: { city: 'Oslo' } },
        { id: 'call_2', name: 'secure_weather', arguments: { city: 'Bergen' } },
        { id: 'call_3', name: 'direct_weather', arguments: { city: 'Roma' } },
        { id: 'call_4', name: 'denied_weather', arguments: { city: 'Nice' } },
        { id: 'call_5', name: 'lookup_order', arguments: { order_id: 'A-7' } },
        { id: 'call_6', name: 'fetch_both', arguments: { city: 'Lima' } },
        { id: 'call_7', name: 'whoami', arguments: {} },
      ]),
      sseText(['Done.']),
    );
    expect((await ws.turn('everything?')).at(-1)).toEqual({ type: 'assistant_end', text: 'Done.' });
    const read = llm.requests.at(-1)!.body.messages.filter((m: any) => m.role === 'tool');
    expect(read.map((m: any) => m.content)).toEqual([
      'Oslo: sunny',
      'Bergen: clear',
      'Roma: sunny',
      'Error: tool request failed: the egress proxy refused the connection to denied.example:443 (HTTP 403)',
      'Order A-7: sent',
      expect.stringMatching(
        /^\["Lima: sunny","refused: localhost resolves to (127\.0\.0\.1|::1), an address this request may not reach/,
      ),
      expect.any(String),
    ]);
    // An MCP server the engine runs reads the proxy in the variables its HTTP client takes.
    expect(JSON.parse(read.at(-1).content)).toMatchObject({
      proxy: urls.proxy,
      noProxy: '127.0.0.1',
    });
    const port = (url: string) => new URL(url).port;
    expect(proxy.targets).toEqual(
      expect.arrayContaining([
        `GET ${urls.llm}/models`,
        `POST ${urls.llm}/chat/completions`,
        expect.stringMatching(new RegExp(`^POST http://idp\\.example:${port(urls.tokens!)}/`)),
        `GET http://api.example:${port(urls.api!)}/Oslo?format=3`,
        `CONNECT localhost:${port(urls.secure!)}`,
        'CONNECT denied.example:443',
        `POST ${urls.mcp}`,
        `GET http://api.example:${port(urls.api!)}/Lima`,
      ]),
    );
    // The turn's spans reach the collector through the proxy too.
    await until(() => collector.spans().some((s) => s.name === 'turn'), 'the turn span', 10_000);
    expect(proxy.targets).toContain(`POST ${urls.collector}/v1/traces`);
    // EGRESS_NO_PROXY's server directly, and the refused loopback request never at the proxy.
    expect(proxy.targets.filter((t) => /127\.0\.0\.1|Roma|localhost:\d+\/Lima/.test(t))).toEqual(
      [],
    );
    expect(api.requests.map((r) => r.path)).toEqual(expect.arrayContaining(['/Roma', '/Oslo']));
    expect(proxy.requests.filter((r) => r.auth !== `Basic ${btoa('agent:p@ss')}`)).toEqual([]);
    expect(secure.requests.map((r) => r.path)).toEqual(['/Bergen']);
    // /health names the proxy, never its credentials.
    const health = (await (await fetch(`${engine().url}/health`)).json()) as Record<
      string,
      unknown
    >;
    expect(health.egress_proxy).toBe(`http://${new URL(urls.proxy!).host}`);
    ws.close();
  }, 60_000);
});

describe('EGRESS_PROXY that cannot be reached', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await Engine.start({
      LLM_BASE_URL: 'http://llm.example/v1',
      LLM_MODEL: 'm',
      LLM_RETRIES: '0',
      EGRESS_PROXY: 'http://127.0.0.1:1',
    });
  });
  afterAll(() => engine.stop());

  it('ends the turn saying the proxy, not the LLM server, could not be reached', async () => {
    const ws = await WsClient.connect(engine.wsUrl);
    const events = await ws.turn('hello?');
    expect(events.find((e) => e.type === 'error')).toEqual({
      type: 'error',
      code: 'llm_failed',
      message: 'LLM request failed: cannot reach the egress proxy (ECONNREFUSED)',
    });
    ws.close();
  });
});

describe('EGRESS_PROXY spoken to over TLS (https://)', () => {
  const llm = new FakeLlm();
  const proxy = new EgressProxy({ hosts: { 'llm.example': '127.0.0.1' }, tls: testTls() });
  let llmUrl = '';
  const engine = useBuiltEngine(async () => {
    llmUrl = as(await llm.start(), 'llm.example');
    return {
      LLM_BASE_URL: llmUrl,
      EGRESS_PROXY: await proxy.start(),
      EGRESS_NO_PROXY: 'none.example',
      NODE_EXTRA_CA_CERTS: TEST_CA,
    };
  });
  afterAll(async () => {
    await llm.stop();
    await proxy.stop();
  });

  it('reaches the LLM server through it, model list and completion alike', async () => {
    const ws = await WsClient.connect(engine().wsUrl);
    llm.enqueue(sseText(['Hello.']));
    expect((await ws.turn('hi')).at(-1)).toEqual({ type: 'assistant_end', text: 'Hello.' });
    // undici tunnels through a TLS proxy even to an HTTP server; Node's agents send absolute form.
    const server = new URL(llmUrl).host;
    expect(proxy.targets).toEqual([
      `CONNECT ${server}`,
      `POST http://${server}/v1/chat/completions`,
    ]);
    expect(llm.modelsRequests).toHaveLength(1);
    ws.close();
  }, 30_000);
});
