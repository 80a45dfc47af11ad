import { Engine } from './support/engine.js';
import { FakeLlm, sseStructuredCalls, sseText } from './support/fake-llm.js';
import { RecordingServer } from './support/recording-server.js';
import { writeToolsFile } from './support/tools-file.js';
import { WsClient } from './support/ws-client.js';
import { RANDOM_FACT } from './support/code-tool-sources.js';

describe('ces_requests with CODE_TOOLS_ALLOW_PRIVATE_NETWORK=true', () => {
  const llm = new FakeLlm();
  const api = new RecordingServer();
  let engine: Engine;

  beforeAll(async () => {
    const base = await api.start();
    api.respond((_req, res) =>
      res
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ text: 'Honey never spoils.' })),
    );
    engine = await Engine.start({
      LLM_BASE_URL: await llm.start(),
      LLM_MODEL: 'm',
      LLM_TOOLS_FILE: writeToolsFile([
        { type: 'python', code: RANDOM_FACT.replace('FACTS_URL', JSON.stringify(`${base}/fact`)) },
      ]),
      CODE_TOOLS_WORKERS: '1',
      CODE_TOOLS_ALLOW_PRIVATE_NETWORK: 'true',
    });
  }, 60000);
  afterAll(async () => {
    await engine.stop();
    await llm.stop();
    await api.stop();
  });

  it('runs the seed example against a real loopback API', async () => {
    const ws = await WsClient.connect(engine.wsUrl);
    llm.enqueue(
      sseStructuredCalls([{ id: 'call_fact', name: 'get_random_fact', arguments: {} }]),
      sseText(['Here is one.']),
    );
    await ws.turn('Tell me a fact');
    expect(llm.requests[1]!.body.messages.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'call_fact',
      content: '"Honey never spoils."',
    });
    expect(api.requests[0]).toMatchObject({ method: 'GET', url: '/fact?language=en' });
    expect(api.requests[0]!.headers.accept).toBe('application/json');
    ws.close();
  });
});
