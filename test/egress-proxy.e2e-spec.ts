import { useBuiltEngine } from './support/built-engine.js';
import { FakeLlm, sseStructuredCalls, sseText } from './support/fake-llm.js';
import { RecordingServer } from './support/recording-server.js';
import { TokenServer } from './support/token-server.js';
import { weatherTool, writeToolsFile } from './support/tools-file.js';
import { WsClient } from './support/ws-client.js';

/**
 * HTTP_PROXY and HTTPS_PROXY in the environment (a cluster-wide setting) are not used: every
 * request goes straight to its server, so that the address guard checks the server's address,
 * not the proxy's — a tool's, its token endpoint's and the LLM server's alike.
 */
describe('an environment with HTTP_PROXY and HTTPS_PROXY', () => {
  const llm = new FakeLlm();
  const api = new RecordingServer();
  const proxy = new RecordingServer();
  const tokens = new TokenServer();
  const engine = useBuiltEngine(async () => {
    api.respond((req, res) => res.end(`${req.path.slice(1)}: sunny`));
    proxy.respond((_req, res) => res.end('the proxy answered'));
    const proxyUrl = await proxy.start();
    const tokenUrl = await tokens.start();
    const file = writeToolsFile([
      {
        ...weatherTool(await api.start()),
        oauth2: { token_url: tokenUrl, client_id: 'agent', client_secret: '${TOOL_SECRET_IDP}' },
      },
    ]);
    return {
      LLM_BASE_URL: await llm.start(),
      LLM_MODEL: 'm',
      LLM_TOOLS_FILE: file,
      TOOL_SECRET_IDP: 's3cret:&',
      HTTP_PROXY: proxyUrl,
      HTTPS_PROXY: proxyUrl,
      http_proxy: proxyUrl,
      https_proxy: proxyUrl,
    };
  });
  afterAll(() => Promise.all([llm.stop(), api.stop(), proxy.stop(), tokens.stop()]));

  it('sends every request straight to its server', async () => {
    const ws = await WsClient.connect(engine().wsUrl);
    llm.enqueue(
      sseStructuredCalls([{ id: 'call_1', name: 'get_weather', arguments: { city: 'Oslo' } }]),
      sseText(['Sunny.']),
    );
    expect((await ws.turn('weather?')).at(-1)).toEqual({ type: 'assistant_end', text: 'Sunny.' });
    expect(llm.requests.at(-1)!.body.messages.at(-1)).toMatchObject({ content: 'Oslo: sunny' });
    expect(api.requests.map((r) => r.path)).toEqual(['/Oslo']);
    expect(api.requests[0]!.headers.authorization).toMatch(/^Bearer tok-/);
    expect(tokens.requests).toHaveLength(1);
    expect(proxy.requests).toEqual([]);
    ws.close();
  }, 30_000);
});
