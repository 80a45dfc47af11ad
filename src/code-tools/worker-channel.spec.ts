import { CodeToolPool } from './code-tool-pool.js';
import { frame, FrameReader, frameLimit } from './sandbox-process.js';
import { jobOf } from '../../test/support/code-tool-job.js';

describe('FrameReader', () => {
  it('gives the messages of frames cut anywhere and of several frames in one chunk', () => {
    const bytes = Buffer.concat([frame({ a: 'é' }), frame([1, 2]), frame('three')]);
    const reader = new FrameReader();
    const got: unknown[] = [];
    let from = 0;
    for (const to of [1, 3, 9, 10, bytes.length]) {
      got.push(...reader.push(bytes.subarray(from, to)));
      from = to;
    }
    expect(got).toEqual([{ a: 'é' }, [1, 2], 'three']);
    expect(new FrameReader().push(bytes)).toEqual([{ a: 'é' }, [1, 2], 'three']);
  });

  it('gives a frame of 4 MB in 64 KB chunks once, whole', () => {
    const big = 'x'.repeat(4 * 1024 * 1024);
    const bytes = Buffer.concat([frame(big), frame('next')]);
    const reader = new FrameReader(8 * 1024 * 1024);
    const got: unknown[] = [];
    for (let at = 0; at < bytes.length; at += 65536)
      got.push(...reader.push(bytes.subarray(at, at + 65536)));
    expect(got).toEqual([big, 'next']);
  });

  it('refuses a frame longer than its limit as soon as its length is read, holding none of it', () => {
    const reader = new FrameReader(1000);
    expect(reader.push(frame('x'.repeat(990)))).toEqual(['x'.repeat(990)]);
    const header = Buffer.alloc(4);
    header.writeUInt32BE(0xffffffff, 0);
    expect(() => reader.push(header)).toThrow(
      'a frame of 4294967295 bytes, over the 1000 its job allows',
    );
    // Its length behind a whole frame, in the same chunk: the frame, then the refusal.
    const after = new FrameReader(1000);
    expect(() => after.push(Buffer.concat([frame('ok'), header]))).toThrow(/4294967295 bytes/);
  });
});

describe('frameLimit', () => {
  it("grows with what a job's reply may carry, and always takes a call into the engine", () => {
    const small = frameLimit({ result_max_chars: 2000, state_max_chars: 2 * 1024 * 1024 }, 500);
    expect(small).toBeGreaterThan(32 * 1024 * 1024); // a 16 MiB request, every quote escaped
    expect(small).toBeLessThan(64 * 1024 * 1024);
    const large = frameLimit({ result_max_chars: 10_000_000, state_max_chars: 0 }, 500);
    // 10 million astral characters, escaped twice: 14 bytes each.
    expect(large).toBeGreaterThan(140_000_000);
    expect(frameLimit({}, 8 * 1024 * 1024)).toBeGreaterThan(14 * 8 * 1024 * 1024);
  });
});

// Tool code can reach its worker's JavaScript (Pyodide's proxies lead to its globals), and from
// there write on the channel its worker answers the engine on. What it writes costs the engine
// nothing: a frame too long or not JSON ends that worker, and the next call gets a fresh one.
describe("Tool code writing on its worker's channel to the engine (real Pyodide)", () => {
  const pool = new CodeToolPool({ workers: 1, memoryMb: 256, packagesDir: '' });
  beforeAll(() => pool.start(), 60000);
  afterAll(() => pool.close());

  const writing = (bytes: string) =>
    [
      'import sys',
      'def f():',
      '    g = sys.modules["pyodide_js"]._api.config.jsglobals',
      '    out = g.process.stdout',
      '    out.fd = 3',
      `    ${bytes}`,
      '    return "written"',
    ].join('\n');
  const run = (code: string) => pool.run({ kind: 'run', job: jobOf(code), timeoutMs: 20000 });

  it('a frame announcing 4 GiB, then 64 MiB of it: the worker is ended at its length', async () => {
    const started = pool.started;
    const reply = await run(
      writing(
        'out.write("ffffffff", "hex")\n    for i in range(64):\n        out.write("x" * 1048576)',
      ),
    );
    expect(reply).toMatchObject({
      ok: false,
      error: expect.stringMatching(
        /^Error: RuntimeError: the code tool worker failed: it sent what is not a message: a frame of 4294967295 bytes, over the \d+ its job allows$/,
      ),
    });
    expect(pool.started).toBe(started + 1);
    expect(await run('def f():\n    return 1')).toMatchObject({ ok: true, result: '1' });
  }, 60000);

  it('a frame that is not JSON: the worker is ended, the next call served', async () => {
    const reply = await run(writing('out.write("0000000568656c6c6f", "hex")'));
    expect(reply).toMatchObject({
      ok: false,
      error: expect.stringContaining(
        'the code tool worker failed: it sent what is not a message: ',
      ),
    });
    expect(await run('def f():\n    return 2')).toMatchObject({ ok: true, result: '2' });
  }, 60000);

  it('calls into the engine past the runtime, more at once than it allows: the worker is ended', async () => {
    const started = pool.started;
    let asked = 0;
    const flood = [
      'import sys',
      'def f():',
      '    start = sys.modules["__main__"]._bridge_start',
      '    for i in range(10000):',
      '        start(\'{"kind": "tool", "payload": {"name": "t", "args": {}}}\')',
      '    while True:',
      '        pass',
    ].join('\n');
    const reply = await pool.run({
      kind: 'run',
      job: jobOf(flood),
      timeoutMs: 20000,
      // Never answered: six are out, and every one more is refused.
      onBridge: () => (asked++, new Promise(() => undefined)),
    });
    expect(reply).toEqual({
      ok: false,
      error:
        'Error: RuntimeError: the code sent the engine calls past the runtime, more at once than it allows',
      logs: '',
    });
    expect(asked).toBe(6);
    expect(pool.started).toBe(started + 1);
    expect(await run('def f():\n    return 3')).toMatchObject({ ok: true, result: '3' });
  }, 60000);
});
