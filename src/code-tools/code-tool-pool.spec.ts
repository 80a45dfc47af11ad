import { jobContext, jobOf, useOneWorkerPool } from '../../test/support/code-tool-job.js';

const context = jobContext('s1', { text: 'hello there', state: { n: 1 } });

describe('CodeToolPool (real Pyodide workers)', () => {
  const pool = useOneWorkerPool();

  const run = (
    code: string,
    func: string,
    args: Record<string, unknown> = {},
    timeoutMs = 3000,
    onBridge?: any,
  ) => pool.run({ kind: 'run', job: { code, func, args, context }, timeoutMs, onBridge });

  it('runs a function in a fresh namespace with context, state and captured print output', async () => {
    const code =
      'def f(x: int) -> dict:\n    print("got", x)\n    context.state["n"] += x\n    return {"double": x * 2, "user": context.user_content.parts[0].text}';
    expect(await run(code, 'f', { x: 4 })).toEqual({
      ok: true,
      result: '{"double": 8, "user": "hello there"}',
      state: { n: 5 },
      logs: 'got 4\n',
    });
    expect(await run('def g():\n    return f', 'g')).toMatchObject({
      ok: false,
      error: "Error: NameError: name 'f' is not defined",
    });
  });

  it('turns exceptions and non-serialisable results into error text', async () => {
    expect(await run('def f():\n    raise ValueError("bad input")', 'f')).toMatchObject({
      ok: false,
      error: 'Error: ValueError: bad input',
    });
    expect(await run('def f():\n    return object()', 'f')).toMatchObject({
      ok: false,
      error: 'Error: TypeError: Object of type object is not JSON serializable',
    });
    expect(await run('def f():\n    return None', 'f')).toMatchObject({ ok: true, result: 'null' });
    // As a traceback's last line says them: the type alone, a message that cannot be read.
    expect(await run('def f():\n    raise StopIteration()', 'f')).toMatchObject({
      error: 'Error: StopIteration',
    });
    const unreadable = 'class Odd(Exception):\n    def __str__(self):\n        raise KeyError()\n';
    expect(await run(`${unreadable}def f():\n    raise Odd()`, 'f')).toMatchObject({
      error: 'Error: Odd: (its message could not be read)',
    });
  });

  it('calls no attribute of a result that answers any (a proxy): it is not JSON', async () => {
    const proxy = [
      'class Proxy:',
      '    def __getattr__(self, name):',
      '        context.state["asked"] = name',
      '        return lambda **kw: {"made": "up"}',
      'def f():',
      '    return Proxy()',
    ].join('\n');
    expect(await run(proxy, 'f')).toMatchObject({
      ok: false,
      error: 'Error: TypeError: Object of type Proxy is not JSON serializable',
    });
  });

  it("writes what JSON lacks as Pydantic's JSON mode does, in the result and in context.state", async () => {
    // A tool that did its work and returns a date must not tell the model it failed.
    const code = [
      'import dataclasses, datetime, decimal, enum, uuid',
      'class Plan(enum.Enum):',
      '    GOLD = "gold"',
      '@dataclasses.dataclass',
      'class Seat:',
      '    row: int',
      '    at: datetime.time',
      'class Model:  # what a Pydantic model offers',
      '    def model_dump(self, mode="python"):',
      '        return {"mode": mode}',
      'def f():',
      '    booked = datetime.datetime(2026, 12, 1, 9, 30, tzinfo=datetime.timezone.utc)',
      '    context.state["booked"] = {"on": datetime.date(2026, 12, 1), "plan": Plan.GOLD}',
      '    return {"at": booked, "price": decimal.Decimal("12.50"), "plan": Plan.GOLD,',
      '            "tags": {"vip"}, "raw": b"ok", "wait": datetime.timedelta(minutes=2),',
      '            "id": uuid.UUID(int=1), "seat": Seat(3, datetime.time(9, 30)), "model": Model()}',
    ].join('\n');
    const reply = (await run(code, 'f')) as { ok: boolean; result: string; state: unknown };
    expect(reply.ok).toBe(true);
    expect(JSON.parse(reply.result)).toEqual({
      at: '2026-12-01T09:30:00+00:00',
      price: '12.50',
      plan: 'gold',
      tags: ['vip'],
      raw: 'ok',
      wait: 120,
      id: '00000000-0000-0000-0000-000000000001',
      seat: { row: 3, at: '09:30:00' },
      model: { mode: 'json' },
    });
    expect(reply.state).toEqual({ n: 1, booked: { on: '2026-12-01', plan: 'gold' } });
  });

  it('fails a call whose context.state JSON cannot hold, saying so, and keeps no change of it', async () => {
    for (const value of ['float("nan")', 'object()'])
      expect(
        await run(`def f():\n    context.state["n"] = 5\n    context.state["x"] = ${value}`, 'f'),
      ).toMatchObject({
        ok: false,
        error: expect.stringMatching(/^Error: TypeError: context\.state cannot be kept: /),
      });
  });

  it("keeps the first 32 KiB of a call's print() output, and says how much more there was", async () => {
    const chatty =
      'def f():\n    for i in range(10000):\n        print("line", i)\n    raise ValueError("done")';
    const { logs } = (await run(chatty, 'f')) as { logs: string };
    const printed = Array.from({ length: 10000 }, (_, i) => `line ${i}\n`).join('');
    expect(logs).toBe(
      `${printed.slice(0, 32 * 1024)}\n… [${printed.length - 32 * 1024} more characters not kept]`,
    );
  });

  it('refuses the JS bridge modules to tool code', async () => {
    expect(await run('def f():\n    import js\n    return 1', 'f')).toMatchObject({
      ok: false,
      error: "Error: ImportError: module 'js' is not available to code tools",
    });
    expect(
      await run('def f():\n    from pyodide.http import pyfetch\n    return 1', 'f'),
    ).toMatchObject({ ok: false, error: expect.stringContaining('ImportError') });
  });

  it('stops an infinite loop at the timeout, and the pool keeps working', async () => {
    const timedOut = { ok: false, error: expect.stringContaining('TimeoutError') };
    const loop = 'def f():\n    while True:\n        pass';
    // A Python loop is stopped by the interrupt alone, without a new worker; also when the
    // timeout fires before the worker has begun the job (1 ms). A machine loaded enough to keep
    // the worker from running for the whole grace period would force a respawn, so the check
    // gets three tries: an interrupt that does not work fails all three.
    let interruptOnly = false;
    // time.sleep too (a retry's wait, a polling loop's), which Pyodide's own sleep kept from it.
    const sleep = 'import time\ndef f():\n    time.sleep(30)';
    // An async tool's coroutine asleep (asyncio.run answers the interrupt by cancelling it).
    const asleep = 'import asyncio\nasync def f():\n    await asyncio.sleep(30)';
    for (let attempt = 0; attempt < 3 && !interruptOnly; attempt++) {
      const before = pool.started;
      expect(await run(loop, 'f', {}, 300)).toMatchObject(timedOut);
      expect(await run(loop, 'f', {}, 1)).toMatchObject(timedOut);
      expect(await run(sleep, 'f', {}, 300)).toMatchObject(timedOut);
      expect(await run(asleep, 'f', {}, 300)).toMatchObject(timedOut);
      interruptOnly = pool.started === before;
    }
    expect(interruptOnly).toBe(true);
    // A loop inside C ignores the interrupt: its worker is terminated after the grace and replaced.
    const started = pool.started;
    expect(await run('def f():\n    return sum(range(10**15))', 'f', {}, 300)).toMatchObject(
      timedOut,
    );
    expect(pool.started).toBe(started + 1);
    expect(await run('def f():\n    return 42', 'f', {}, 30000)).toMatchObject({
      ok: true,
      result: '42',
    });
  }, 90000);

  it('cancels a running job at once with its signal, and a waiting one before it runs', async () => {
    const loop =
      'def f():\n    print("started")\n    tools.ready({})\n    while True:\n        pass';
    /** Starts the loop job and a job behind it, cancels the waiting one, then the running one. */
    const cancelBoth = async () => {
      const running = new AbortController();
      const waiting = new AbortController();
      const before = pool.started;
      let ready!: () => void;
      const inLoop = new Promise<void>((resolve) => (ready = resolve));
      const first = pool.run({
        kind: 'run',
        job: jobOf(loop, context),
        timeoutMs: 60_000,
        signal: running.signal,
        onBridge: () => {
          ready();
          return Promise.resolve({ text: '{}' });
        },
      });
      // With one worker, this job waits behind the loop; had it run, it would print.
      const second = pool.run({
        kind: 'run',
        job: { code: 'def g():\n    print("ran")\n    return 1', func: 'g', args: {}, context },
        timeoutMs: 60_000,
        signal: waiting.signal,
      });
      // The loop job has printed (no fixed sleep that a slow machine outruns before it starts),
      // and is given a moment to be back in its loop from the bridge call.
      await inLoop;
      await new Promise((r) => setTimeout(r, 100));
      waiting.abort();
      expect(await second).toEqual({ ok: false, error: 'Error: cancelled', logs: '' });
      const at = performance.now();
      running.abort();
      const result = await first;
      return { result, ms: performance.now() - at, replaced: pool.started !== before };
    };
    // The interrupt alone stops the loop, in the same worker, and the job's output is kept. A
    // machine loaded enough to keep the worker from running for the whole grace period forces a
    // new worker (and the output is lost with the old one), so the check gets three tries: an
    // interrupt that does not work fails all three.
    let outcome = await cancelBoth();
    for (let attempt = 1; attempt < 3 && outcome.replaced; attempt++) outcome = await cancelBoth();
    expect(outcome.replaced).toBe(false);
    expect(outcome.result).toEqual({ ok: false, error: 'Error: cancelled', logs: 'started\n' });
    expect(outcome.ms).toBeLessThan(6000);
    expect(await run('def f():\n    return 7', 'f')).toMatchObject({ ok: true, result: '7' });
    const aborted = AbortSignal.abort();
    expect(await pool.run({ kind: 'run', job: {}, timeoutMs: 1, signal: aborted })).toEqual({
      ok: false,
      error: 'Error: cancelled',
      logs: '',
    });
  }, 60000);

  it('answers tools.* calls synchronously through the bridge', async () => {
    const onBridge = async (request: { kind: string; payload: Record<string, unknown> }) => {
      await new Promise((r) => setTimeout(r, 20));
      return { text: JSON.stringify({ echo: request.payload, kind: request.kind }) };
    };
    const code =
      'def f():\n    r = tools.get_weather({"city": "Rome"})\n    return r["echo"]["args"]["city"]';
    expect(await run(code, 'f', {}, 3000, onBridge)).toMatchObject({ ok: true, result: '"Rome"' });
  });

  it('analyses code without running it: name, docstring, schema from type hints and Args', async () => {
    const code = [
      'from typing import Optional',
      'print("must not run")',
      'def update_points(points_to_add: int, reason: Optional[str] = None, tags: list = []) -> dict:',
      '    """',
      '    Adds loyalty points to the profile.',
      '',
      '    Args:',
      '        points_to_add: The number of points to add.',
      '        reason: Why.',
      '    """',
      '    return {}',
    ].join('\n');
    expect(await pool.run({ kind: 'analyze', job: { code }, timeoutMs: 3000 })).toEqual({
      ok: true,
      name: 'update_points',
      description: 'Adds loyalty points to the profile.',
      line: 3,
      parameters: {
        type: 'object',
        properties: {
          points_to_add: { type: 'integer', description: 'The number of points to add.' },
          reason: { type: ['string', 'null'], description: 'Why.' },
          tags: { type: 'array' },
        },
        required: ['points_to_add'],
      },
    });
    expect(
      await pool.run({ kind: 'analyze', job: { code: 'def f(:\n  pass' }, timeoutMs: 3000 }),
    ).toMatchObject({
      ok: false,
      line: 1,
      error: expect.stringContaining('syntax error at line 1'),
    });
    expect(
      await pool.run({
        kind: 'analyze',
        job: { code: 'def f():\n  pass', name: 'g' },
        timeoutMs: 3000,
      }),
    ).toMatchObject({ ok: false, error: "no function named 'g' (functions defined: f)" });
  });
});
