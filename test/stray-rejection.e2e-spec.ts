import { resolve } from 'node:path';
import { runBuiltEngine } from './support/built-engine.js';
import { until } from './support/waiting.js';

/**
 * A promise rejected with no handler in the engine's process (a fault of its own, in work no turn
 * awaits; test/support/stray-rejection.mjs makes one) is logged with its stack, and the engine
 * goes on serving: Node's default would end the process, and every call it holds.
 */
describe('a promise rejected with no handler in the built engine', () => {
  it('is logged at error level, and the engine goes on serving', async () => {
    const engine = await runBuiltEngine(
      {
        PORT: '0',
        LLM_BASE_URL: 'http://127.0.0.1:9/v1',
        LLM_MODEL: 'm',
        NODE_OPTIONS: `--import=${resolve('test/support/stray-rejection.mjs')}`,
      },
      true,
    );
    try {
      expect(engine.url).toBeDefined();
      process.kill(engine.pid!, 'SIGUSR2');
      await until(() => engine.output.includes('a stray fault'), 'the fault', 10_000);
      const logged = engine.output
        .split('\n')
        .filter((line) => line.includes('a stray fault'))
        .map((line) => JSON.parse(line) as { level: string; msg: string });
      expect(logged).toEqual([
        expect.objectContaining({
          level: 'error',
          msg: expect.stringMatching(
            /^a promise was rejected with no handler: Error: a stray fault\n\s+at /,
          ),
        }),
      ]);
      expect((await fetch(`${engine.url}/health`)).status).toBe(200);
    } finally {
      engine.stop();
    }
    expect(await engine.exited).toBe(0);
  }, 60_000);
});
