import { CodeToolPool } from './code-tool-pool.js';
import { outsideLimit, residentBytes } from './worker-memory.js';
import { jobOf } from '../../test/support/code-tool-job.js';

describe("A worker's memory read from outside", () => {
  it("is the process's resident memory, or nothing where it cannot be read", () => {
    const rss = process.memoryUsage.rss();
    expect(residentBytes(process.pid)).toBeGreaterThan(rss * 0.8);
    expect(residentBytes(process.pid)).toBeLessThan(rss * 1.25);
    expect(residentBytes(undefined)).toBeUndefined();
    expect(residentBytes(2 ** 30)).toBeUndefined();
  });

  it("leaves room past the worker's own check, which stops it first", () => {
    const mib = 1024 * 1024;
    expect(outsideLimit(100 * mib, 256)).toBe(100 * mib + 320 * mib + 64 * mib);
  });
});

// CODE_TOOLS_MEMORY_MB holds even for code that reaches its worker's JavaScript (Pyodide's proxies
// lead to its globals) and switches off the worker's own check of its memory.
describe("Code tools whose code switched off its worker's memory check (real Pyodide)", () => {
  const pool = new CodeToolPool({ workers: 1, memoryMb: 128, packagesDir: '' });
  beforeAll(() => pool.start(), 60000);
  afterAll(() => pool.close());

  it('are stopped from outside with the MemoryError, and the next call gets a fresh worker', async () => {
    const started = pool.started;
    const reply = await pool.run({
      kind: 'run',
      job: jobOf(
        [
          'import sys',
          'def f():',
          '    g = sys.modules["pyodide_js"]._api.config.jsglobals',
          '    g.process.memoryUsage.rss = lambda: 0',
          '    chunk = b"x" * (8 * 1024 * 1024)',
          '    with open("/tmp/big", "wb") as out:',
          '        for i in range(128):',
          '            out.write(chunk)',
          '    return "1 GiB written"',
        ].join('\n'),
      ),
      timeoutMs: 60000,
    });
    expect(reply).toEqual({
      ok: false,
      error:
        'Error: MemoryError: the code needed more memory than CODE_TOOLS_MEMORY_MB (128 MiB) allows',
      logs: '',
    });
    expect(pool.started).toBe(started + 1);
    expect(
      await pool.run({ kind: 'run', job: jobOf('def f():\n    return 1'), timeoutMs: 60000 }),
    ).toMatchObject({ ok: true, result: '1' });
  }, 120_000);
});
