import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createServer, type Server } from 'node:net';
import { CodeToolPool } from './code-tool-pool.js';
import { SandboxProcess } from './sandbox-process.js';
import type { WorkerMessage } from './worker-reply.js';
import { jobContext, jobOf } from '../../test/support/code-tool-job.js';

const context = jobContext();

// Code tools are admin-written, but a tool set can come over the API: what a tool's code reaches
// is Pyodide's JavaScript in a process of its own, and from there nothing of the engine's.
describe('Code tools run in a process kept from the engine (real Pyodide)', () => {
  const pool = new CodeToolPool({ workers: 1, memoryMb: 1024, packagesDir: '' });
  let server: Server;
  let connections = 0;
  beforeAll(async () => {
    server = createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    // The engine's time zone goes to its workers (their only variable), read as they start.
    const zone = process.env.TZ;
    process.env.TZ = 'Asia/Tokyo';
    try {
      await pool.start();
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  }, 60000);
  afterAll(async () => {
    await pool.close();
    await new Promise((resolve) => server.close(resolve));
  });

  const run = (body: string) =>
    pool.run({
      kind: 'run',
      job: jobOf(`import sys\ndef f():\n${body}`, context),
      timeoutMs: 10000,
    });
  const js = '    js = sys.modules["pyodide_js"]\n';

  it('compiles no JavaScript from a string', async () => {
    expect(
      await run(`${js}    return js.constructor.constructor("return globalThis")() is not None`),
    ).toMatchObject({ ok: false, error: expect.stringContaining('Code generation from strings') });
  });

  it("reads none of the engine's files, nor its environment", async () => {
    for (const [host, file] of [
      ['/', `/proc/${process.pid}/environ`],
      ['/proc', `/${process.pid}/environ`],
      [process.cwd(), '/package.json'],
    ]) {
      const reply = await run(
        `${js}    js.mountNodeFS("/host", ${JSON.stringify(host)})\n    return open("/host${file}").read()`,
      );
      expect(reply).toMatchObject({ ok: false });
      expect(JSON.stringify(reply)).not.toContain('LLM_');
    }
  });

  it('opens no connection, by Python sockets or by Node', async () => {
    const port = (server.address() as { port: number }).port;
    const connect = `    import socket\n    socket.create_connection(("127.0.0.1", ${port}), timeout=2)\n    return "connected"`;
    expect(await run(connect)).toMatchObject({ ok: false });
    expect(await run(`${js}    js.useNodeSockFS()\n${connect}`)).toMatchObject({
      ok: false,
      error: expect.stringContaining('not available to code tools'),
    });
    expect(await run(`${js}    js._api.initializeNodeSockFS()\n${connect}`)).toMatchObject({
      ok: false,
      error: expect.stringContaining('not available to code tools'),
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(connections).toBe(0);
  });

  it('starts no process', async () => {
    expect(
      await run('    import subprocess\n    return str(subprocess.run(["true"]))'),
    ).toMatchObject({ ok: false, error: expect.stringContaining('OSError') });
  });

  it("keeps the engine's time zone", async () => {
    expect(
      await run('    import time\n    return time.strftime("%z", time.localtime())'),
    ).toMatchObject({
      ok: true,
      result: '"+0900"',
    });
  });

  it("gives Python's input() the end of its input", async () => {
    expect(await run('    return input()')).toMatchObject({
      ok: false,
      error: expect.stringContaining('EOFError'),
    });
  });

  it('loads the standard library compiled at build time, its sources still there', async () => {
    // Bytecode compiled by the build (scripts/python-stdlib.mjs), not compiled by each worker.
    expect(
      await run(
        '    import email.message, inspect\n    return [email.message.__file__, inspect.getsource(email.message.Message.get)[:8]]',
      ),
    ).toMatchObject({
      ok: true,
      result: '["/lib/python314.zip/email/message.pyc", "    def "]',
    });
  });

  it('still runs tool code after all of the above', async () => {
    expect(await run('    return 6 * 7')).toMatchObject({ ok: true, result: '42' });
  });
});

describe('Code tools writing files', () => {
  const pool = new CodeToolPool({ workers: 1, memoryMb: 128, packagesDir: '' });
  beforeAll(() => pool.start(), 60000);
  afterAll(() => pool.close());

  it('are held to CODE_TOOLS_MEMORY_MB too (the files live outside the interpreter)', async () => {
    const write = [
      'def f():',
      '    chunk = b"x" * (8 * 1024 * 1024)',
      '    with open("/tmp/big", "wb") as out:',
      '        for i in range(128):',
      '            out.write(chunk)',
      '    return "1 GiB written"',
    ].join('\n');
    const started = pool.started;
    expect(
      await pool.run({
        kind: 'run',
        job: jobOf(write, context),
        timeoutMs: 60000,
      }),
    ).toMatchObject({
      ok: false,
      error:
        'Error: MemoryError: the code needed more memory than CODE_TOOLS_MEMORY_MB (128 MiB) allows',
    });
    // Its worker, grown, is replaced; the next call runs in a fresh one.
    expect(pool.started).toBe(started + 1);
    expect(
      await pool.run({
        kind: 'run',
        job: jobOf('def f():\n    return 1', context),
        timeoutMs: 60000,
      }),
    ).toMatchObject({ ok: true, result: '1' });
  }, 120_000);
});

describe('Code tools whose workers cannot start', () => {
  // CODE_TOOLS_PACKAGES_DIR gone: every worker fails while loading.
  const pool = new CodeToolPool({ workers: 1, memoryMb: 256, packagesDir: '/nonexistent-wheels' });
  afterAll(() => pool.close());

  it('fail their calls at once, saying why, and try again later each time', async () => {
    await expect(pool.start()).rejects.toThrow(/exited \(code 1\).*nonexistent-wheels/);
    const failed = {
      ok: false,
      error: expect.stringMatching(
        /^Error: RuntimeError: the code tool worker failed: .*nonexistent-wheels/,
      ),
    };
    const job = jobOf('def f():\n    return 1', context);
    expect(await pool.run({ kind: 'run', job, timeoutMs: 5000 })).toMatchObject(failed);
    // Retried after 0.5 s, then 1 s: three starts in 2.5 s, not one every few milliseconds.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(pool.started).toBeGreaterThanOrEqual(2);
    expect(pool.started).toBeLessThanOrEqual(3);
    expect(await pool.run({ kind: 'run', job, timeoutMs: 5000 })).toMatchObject(failed);
  }, 20000);
});

describe("A code tools worker given Pyodide's own standard library (a build without the compiled one)", () => {
  it('loads it and runs tool code', async () => {
    const own = join(
      dirname(createRequire(import.meta.url).resolve('pyodide')),
      'python_stdlib.zip',
    );
    const messages: WorkerMessage[] = [];
    let heard: () => void = () => undefined;
    const worker = new SandboxProcess(
      { packagesDir: '', memoryMb: 256, stdlib: own },
      (message) => (messages.push(message), heard()),
      (why) => messages.push({ type: 'failed', result: why }),
    );
    const next = (type: string) =>
      new Promise<WorkerMessage>((resolve) => {
        const look = () => {
          const found = messages.find((m) => m.type === type || m.type === 'failed');
          if (found) resolve(found);
          else heard = look;
        };
        look();
      });
    try {
      worker.busy = true;
      expect(await next('ready')).toMatchObject({ type: 'ready' });
      const code = 'import email.message\ndef f():\n    return email.message.__file__';
      worker.send({ type: 'job', id: 1, kind: 'run', job: jobOf(code, context) });
      const reply = JSON.parse((await next('result')).result ?? '{}') as Record<string, unknown>;
      expect(reply).toMatchObject({ ok: true, result: '"/lib/python314.zip/email/message.py"' });
    } finally {
      await worker.kill();
    }
  }, 60_000);
});

describe('A code tools worker whose engine is gone', () => {
  /** Whether process `pid` has ended (a zombie waiting to be reaped has). */
  const ended = (pid: number) => {
    try {
      return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.startsWith('Z');
    } catch {
      return true;
    }
  };

  it('exits: an engine killed leaves no interpreter behind', async () => {
    const script = `
      import { SandboxProcess } from './dist/code-tools/sandbox-process.js';
      const worker = new SandboxProcess({ packagesDir: '', memoryMb: 256 }, (m) => {
        if (m.type === 'ready') console.log(worker.pid);
      }, (why) => console.log(why));
      worker.busy = true;`;
    const engine = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const pid = await new Promise<number>((resolve) =>
        engine.stdout.once('data', (line: Buffer) => resolve(Number(String(line).trim()))),
      );
      expect(ended(pid)).toBe(false);
      engine.kill('SIGKILL');
      const deadline = Date.now() + 10_000;
      while (!ended(pid) && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(ended(pid)).toBe(true);
    } finally {
      engine.kill('SIGKILL');
    }
  }, 60_000);
});
