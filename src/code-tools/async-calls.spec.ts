import type { BridgeHandler, BridgeRequest } from './bridge.js';
import { jobOf, useOneWorkerPool } from '../../test/support/code-tool-job.js';

/** Code's calls into the engine: async code's several out at once (python_asyncio.py, bridge.ts JobCalls). */
describe('code tools calling into the engine (real Pyodide worker)', () => {
  const pool = useOneWorkerPool();

  const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const run = (code: string, timeoutMs: number, onBridge: BridgeHandler) =>
    pool.run({ kind: 'run', job: jobOf(code), timeoutMs, onBridge });
  /** Pages answered after the delay their path names (/page/<n>/<ms>); tools.<name> at once. */
  const answering = (asked: string[]) => async (request: BridgeRequest) => {
    if (request.kind === 'tool') {
      asked.push(`tool ${String(request.payload.name)}`);
      return { text: JSON.stringify(request.payload.args) };
    }
    const [, , n, ms] = String(request.payload.url).split('/').slice(2);
    asked.push(`page ${n}`);
    await delay(Number(ms));
    return {
      status_code: 200,
      reason: 'OK',
      text: `page ${n}`,
      headers: {},
      url: request.payload.url,
    };
  };

  it('gives each answer to its own request, in whatever order they come, a tools call between', async () => {
    const code = [
      'import asyncio, aiohttp',
      'async def f():',
      '    async with aiohttp.ClientSession() as s:',
      '        async def page(n, ms):',
      '            async with s.get(f"http://api.example/page/{n}/{ms}") as r:',
      '                return await r.text()',
      '        async def lookup():',
      '            await asyncio.sleep(0.05)',
      '            return tools.lookup({"n": 9})["n"]',
      '        return await asyncio.gather(page(1, 400), page(2, 10), lookup(), page(3, 150))',
    ].join('\n');
    const asked: string[] = [];
    const reply = await run(code, 10_000, answering(asked));
    expect(reply).toMatchObject({ ok: true, result: '["page 1", "page 2", 9, "page 3"]' });
    // All three pages were asked for before the first was answered.
    expect(asked.slice(0, 3)).toEqual(['page 1', 'page 2', 'page 3']);
  }, 30_000);

  it('stops code awaiting an answer that does not come at its timeout, keeping its worker', async () => {
    const code = [
      'import aiohttp',
      'async def f():',
      '    async with aiohttp.ClientSession() as s:',
      '        await s.get("http://api.example/never")',
    ].join('\n');
    const started = pool.started;
    const reply = await run(code, 300, () => new Promise(() => undefined));
    expect(reply).toMatchObject({ ok: false, error: expect.stringContaining('TimeoutError') });
    expect(pool.started).toBe(started);
    // An answer that comes after its job ended reaches no one: the next job runs as usual.
    const late = await run(code, 300, () =>
      delay(400).then(() => ({ status_code: 200, text: 'late', headers: {} })),
    );
    expect(late).toMatchObject({ ok: false, error: expect.stringContaining('TimeoutError') });
    await delay(200);
    const asked: string[] = [];
    const next = await run('def f():\n    return tools.echo({"x": 1})', 5000, answering(asked));
    expect(next).toMatchObject({ ok: true, result: '{"x": 1}' });
    expect(pool.started).toBe(started);
  }, 30_000);

  it('stops plain code waiting for an answer at its timeout, keeping its worker, and aborts the request', async () => {
    const code = [
      'import requests',
      'def f():',
      '    try:',
      '        requests.get("http://api.example/never")',
      '    except Exception as e:',
      '        return f"caught {e}"',
    ].join('\n');
    const started = pool.started;
    let aborted = false;
    const reply = await run(
      code,
      300,
      (_request, signal) =>
        new Promise(() => signal.addEventListener('abort', () => (aborted = true))),
    );
    // KeyboardInterrupt, which `except Exception` does not catch.
    expect(reply).toMatchObject({ ok: false, error: expect.stringContaining('TimeoutError') });
    expect(aborted).toBe(true);
    expect(pool.started).toBe(started);
  }, 30_000);
});
