import { CodeToolPool } from './code-tool-pool.js';
import { jobOf } from '../../test/support/code-tool-job.js';

const busyFor = (secs: number) =>
  jobOf(
    `import time\ndef f():\n    end = time.time() + ${secs}\n    while time.time() < end:\n        pass\n    return "done"`,
  );
const quick = jobOf('def f():\n    print("ran")\n    return 1');

describe('CodeToolPool: calls waiting for a worker (real Pyodide)', () => {
  const pool = new CodeToolPool({ workers: 1, memoryMb: 256, packagesDir: '' });
  afterAll(() => pool.close());

  it('waits for workers still starting, however short its timeout', async () => {
    // Not started: the call waits for the worker's start (about a second), past its 0.2 s.
    expect(await pool.run({ kind: 'run', job: quick, timeoutMs: 200 })).toMatchObject({
      ok: true,
      result: '1',
    });
  }, 60_000);

  it('fails without running when every worker stays busy past its timeout, saying so', async () => {
    await pool.start();
    const long = pool.run({ kind: 'run', job: busyFor(3), timeoutMs: 20_000 });
    const waited = await pool.run({ kind: 'run', job: quick, timeoutMs: 500 });
    expect(waited).toEqual({
      ok: false,
      error:
        'Error: TimeoutError: no code tools worker was free within 0.5s (all 1 busy): the code did not run',
      logs: '',
    });
    // The call that held the worker is not disturbed; the worker takes calls after it.
    expect(await long).toMatchObject({ ok: true, result: '"done"' });
    expect(await pool.run({ kind: 'run', job: quick, timeoutMs: 500 })).toMatchObject({
      ok: true,
      logs: 'ran\n',
    });
  }, 60_000);

  it('runs with its whole timeout once a worker is free within it', async () => {
    const first = pool.run({ kind: 'run', job: busyFor(1.5), timeoutMs: 20_000 });
    // Waits ~1.5 s of its 2 s, then runs 1.5 s: 3 s in all, over its timeout, within it in each part.
    const second = await pool.run({ kind: 'run', job: busyFor(1.5), timeoutMs: 2_000 });
    expect(second).toMatchObject({ ok: true, result: '"done"' });
    expect(await first).toMatchObject({ ok: true });
  }, 60_000);
});
