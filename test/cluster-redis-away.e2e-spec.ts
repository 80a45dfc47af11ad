import { useTwoProcesses } from './support/built-engine.js';
import { FakeLlm } from './support/fake-llm.js';
import { expectTwoASecond, expectTwoAtOnce } from './support/limited-calls.js';
import { RecordingServer } from './support/recording-server.js';
import { REFUSED_ORIGIN } from './support/refused.js';
import { writeToolsFile } from './support/tools-file.js';

/**
 * ENGINE_PROCESSES=2 with a Redis SESSION_STORE_URL that does not answer: the tools' limits, which
 * Redis would keep across replicas, are kept by the cluster's primary for the engine's processes
 * meanwhile, not by each process alone.
 */
describe('ENGINE_PROCESSES=2 while Redis is away', () => {
  const llm = new FakeLlm();
  const tools = new RecordingServer();
  const engine = useTwoProcesses(async () => {
    const base = await tools.start();
    const file = writeToolsFile([
      { name: 'fragile', url: `${base}/fragile`, max_concurrency: 2 },
      { name: 'paced', url: `${base}/paced`, rate_limit: { calls: 2, per_secs: 1 } },
    ]);
    return {
      LLM_BASE_URL: await llm.start(),
      LLM_MODEL: 'qwen3-coder',
      LLM_TOOLS_FILE: file,
      LLM_TOOL_RETRIES: '0',
      // Nothing listens there: the store's start-up waits for it, then goes on without it.
      SESSION_STORE_URL: `redis://${new URL(REFUSED_ORIGIN).host}`,
    };
  });
  afterAll(() => Promise.all([llm.stop(), tools.stop()]));

  it('runs at most max_concurrency calls of a tool at once across the processes, and says why', async () => {
    await expectTwoAtOnce(engine().url, llm, tools, 'fragile');
    expect(engine().output).toContain(
      "Redis unavailable: max_concurrency and rate_limit hold across this engine's processes only",
    );
  }, 30000);

  it('keeps a tool to its rate_limit across the processes', async () => {
    await expectTwoASecond(engine().url, llm, tools, 'paced');
  }, 30000);
});
