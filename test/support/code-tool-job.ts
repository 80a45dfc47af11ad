import { CodeToolPool } from '../../src/code-tools/code-tool-pool.js';

/**
 * The `context` a code tool's job carries into its worker (what the engine builds from a turn:
 * CodeToolService), for tests that drive the pool itself. `session` also names the call.
 */
export function jobContext(
  session = 's1',
  { text = 'hi', state = {} }: { text?: string; state?: Record<string, unknown> } = {},
) {
  return {
    function_call_id: `call_${session}`,
    user_content: { role: 'user', parts: [{ text }] },
    state,
    events: [],
    session_id: session,
    invocation_id: 't1',
    agent_name: 'agent',
    session: { modality: 'TEXT', channel: 'websocket' },
  };
}

/** The job of calling `f()` in `code` with no arguments, as the pool takes it (`pool.run({job})`). */
export const jobOf = (code: string, context: ReturnType<typeof jobContext> = jobContext()) => ({
  code,
  func: 'f',
  args: {},
  context,
});

/**
 * A pool of one worker started before the block's tests and closed after. A long grace: on a
 * loaded machine, interrupted code may take more than the default 1.5 s to stop, and tests check
 * that the interrupt alone stops it (no worker started in its place).
 */
export function useOneWorkerPool(): CodeToolPool {
  const pool = new CodeToolPool({
    workers: 1,
    memoryMb: 1024,
    packagesDir: '',
    interruptGraceMs: 6000,
  });
  beforeAll(() => pool.start(), 60000);
  afterAll(() => pool.close());
  return pool;
}
