import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { runBuiltEngine, type BuiltEngineRun } from './support/built-engine.js';
import { FakeLlm, sseText } from './support/fake-llm.js';
import { RecordingServer } from './support/recording-server.js';
import { weatherTool, writeToolsFile } from './support/tools-file.js';
import { pieces, xmlCall } from './support/turn-harness.js';

const CLIENT = 'test/fixtures/seed/client.py';

/** A Python 3 that can import `websockets` (Debian: python3-websockets, installed by .ci/run). */
function pythonWithWebsockets(): string {
  for (const python of ['python3', '/usr/bin/python3']) {
    const probe = spawnSync(python, ['-c', 'import websockets'], { stdio: 'ignore' });
    if (probe.status === 0) return python;
  }
  throw new Error(
    "the seed's client needs Python 3 with the websockets package (Debian: apt-get install python3-websockets)",
  );
}

// Seed 000 §8: "With the service running on ws://localhost:8787/ws", its own Python client must
// print the tool call and "turn finished". The engine runs as users run it, on its default port.
describe("the seed's Python client against node dist/main.js on port 8787", () => {
  const llm = new FakeLlm();
  const tools = new RecordingServer();
  let engine: BuiltEngineRun;

  beforeAll(async () => {
    tools.respond((_req, res) => res.end('Paris: sunny +21°C'));
    const base = await tools.start();
    const file = writeToolsFile([weatherTool(base)]);
    engine = await runBuiltEngine(
      { LLM_BASE_URL: await llm.start(), LLM_MODEL: 'qwen3-coder', LLM_TOOLS_FILE: file },
      true,
    );
    if (!engine.url) throw new Error(`the engine did not start:\n${engine.output}`);
  }, 120000);

  afterAll(async () => {
    engine?.stop();
    await Promise.all([llm.stop(), tools.stop()]);
  });

  it('prints the tool call, then "turn finished"; the weather tool is hit at /{city}', async () => {
    expect(engine.url).toBe('http://127.0.0.1:8787');
    llm.enqueue(
      sseText(pieces(xmlCall('get_weather', { city: 'Paris' })), 'stop'),
      sseText(pieces('It is sunny in Paris, 21 degrees.')),
    );
    // Asynchronous: the fake LLM and the tool server answer from this process meanwhile.
    const { stdout: output } = await promisify(execFile)(pythonWithWebsockets(), [CLIENT], {
      encoding: 'utf8',
      timeout: 15000,
    });
    expect(output).toBe("TOOL: get_weather {'city': 'Paris'}\nturn finished\n");
    expect(tools.requests.map((r) => r.url)).toEqual(['/Paris?format=3']);
    expect(llm.requests).toHaveLength(2);
    expect(llm.requests[1]!.body.messages.at(-1)).toMatchObject({
      role: 'tool',
      content: 'Paris: sunny +21°C',
    });
  });
});
