/**
 * Workers the pool replaces (real Pyodide workers, each test with a pool of its own settings):
 * past the memory cap, after a fatal error (the pool's jobs: code-tool-pool.spec.ts).
 */
import { CodeToolPool } from './code-tool-pool.js';
import { jobContext, jobOf } from '../../test/support/code-tool-job.js';

const context = jobContext('s1', { text: 'hello there', state: { n: 1 } });

describe('CodeToolPool options', () => {
  const pool = new CodeToolPool({ workers: 1, memoryMb: 16, packagesDir: 'test/fixtures/wheels' });
  afterAll(() => pool.close());

  it('loads extra packages from CODE_TOOLS_PACKAGES_DIR, and replaces a worker past the memory cap', async () => {
    await pool.start();
    const code = 'import tinypkg\ndef f():\n    return tinypkg.hello()';
    expect(
      await pool.run({ kind: 'run', job: jobOf(code, context), timeoutMs: 5000 }),
    ).toMatchObject({ ok: true, result: '"hello from tinypkg"' });
    // An interpreter's heap starts near 30 MiB, over this 16 MiB cap: the worker is replaced after the call.
    expect(pool.started).toBe(2);
  }, 60000);
});

describe('CodeToolPool: packages the directory lacks', () => {
  // A cap the interpreter starts within: under 16 MiB, any growth of its heap while the import
  // searches would be refused before the module is found missing.
  const pool = new CodeToolPool({ workers: 1, memoryMb: 256, packagesDir: 'test/fixtures/wheels' });
  afterAll(() => pool.close());

  it('are not found elsewhere: the code reads that the module is missing', async () => {
    await pool.start();
    const missing = 'import pydantic\ndef f():\n    return 1';
    expect(
      await pool.run({ kind: 'run', job: jobOf(missing, context), timeoutMs: 30000 }),
    ).toMatchObject({
      ok: false,
      error: "Error: ModuleNotFoundError: No module named 'pydantic'",
    });
  }, 60000);
});

describe('CodeToolPool: code that breaks its interpreter', () => {
  const pool = new CodeToolPool({ workers: 1, memoryMb: 64, packagesDir: '' });
  afterAll(() => pool.close());
  const run = (code: string) =>
    pool.run({ kind: 'run', job: jobOf(code, context), timeoutMs: 20000 });

  it('refuses code memory past CODE_TOOLS_MEMORY_MB while it runs, then replaces the worker', async () => {
    await pool.start();
    expect(await run('def f():\n    b = bytearray(300 * 1024 * 1024)\n    return len(b)')).toEqual({
      ok: false,
      error:
        'Error: MemoryError: the code needed more memory than CODE_TOOLS_MEMORY_MB (64 MiB) allows',
      logs: '',
    });
    expect(pool.started).toBe(2);
    // Code that catches the MemoryError goes on; its worker is replaced all the same.
    const caught =
      'def f():\n    try:\n        bytearray(300 * 1024 * 1024)\n    except MemoryError:\n        return "too big"';
    expect(await run(caught)).toMatchObject({ ok: true, result: '"too big"' });
    expect(pool.started).toBe(3);
    // Another error after a refused growth is told as it is.
    const other =
      'def f():\n    try:\n        bytearray(300 * 1024 * 1024)\n    except MemoryError:\n        raise ValueError("no room")';
    expect(await run(other)).toMatchObject({ ok: false, error: 'Error: ValueError: no room' });
    expect(pool.started).toBe(4);
    expect(await run('def f():\n    return len(bytearray(8 * 1024 * 1024))')).toMatchObject({
      ok: true,
      result: String(8 * 1024 * 1024),
    });
    expect(pool.started).toBe(4);
  }, 60000);

  it('replaces a worker whose interpreter suffered a fatal error (JS stack overflow in deep recursion)', async () => {
    await pool.start();
    const started = pool.started;
    const deep =
      'import sys\nsys.setrecursionlimit(10**6)\ndef g(n):\n    return g(n + 1)\ndef f():\n    return g(0)';
    expect(await run(deep)).toMatchObject({ ok: false, error: expect.stringMatching(/^Error: /) });
    expect(pool.started).toBe(started + 1);
    expect(await run('def f():\n    return sum(range(10))')).toMatchObject({
      ok: true,
      result: '45',
    });
  }, 60000);
});
