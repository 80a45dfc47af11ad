import { jobContext, useOneWorkerPool } from '../../test/support/code-tool-job.js';

/** What a code tool's function is handed of the arguments the model wrote. */
describe('code tool arguments (real Pyodide worker)', () => {
  const pool = useOneWorkerPool();
  const run = (code: string, args: Record<string, unknown>) =>
    pool.run({
      kind: 'run',
      job: { code, func: 'f', args, context: jobContext() },
      timeoutMs: 5000,
    });

  it('leaves out an argument the function does not take, as ADK does, rather than fail the call', async () => {
    const code = 'def f(city: str, *, days: int = 1):\n    return f"{city} {days}"';
    expect(await run(code, { city: 'Rome', days: 2, country: 'IT' })).toMatchObject({
      ok: true,
      result: '"Rome 2"',
    });
    // A function with **kwargs takes them all; a missing argument still fails, saying which.
    const open = 'def f(city, **more):\n    return sorted(more)';
    expect(await run(open, { city: 'Rome', country: 'IT' })).toMatchObject({
      ok: true,
      result: '["country"]',
    });
    expect(await run(code, { country: 'IT' })).toMatchObject({
      ok: false,
      error: "Error: TypeError: f() missing 1 required positional argument: 'city'",
    });
  });
});
