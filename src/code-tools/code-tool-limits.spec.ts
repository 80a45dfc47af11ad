import { CodeToolPool } from './code-tool-pool.js';
import { jobContext, jobOf } from '../../test/support/code-tool-job.js';

const context = jobContext('s1', { state: { n: 1 } });

// What crosses between a worker and the engine is bounded, whatever a call makes: the engine's
// memory holds every session.
describe('CodeToolPool: the sizes that cross between a worker and the engine (real Pyodide)', () => {
  const pool = new CodeToolPool({ workers: 1, memoryMb: 1024, packagesDir: '' });
  beforeAll(() => pool.start(), 60000);
  afterAll(() => pool.close());

  const run = (
    code: string,
    func: string,
    args: Record<string, unknown>,
    timeoutMs: number,
    onBridge: any,
  ) => pool.run({ kind: 'run', job: { code, func, args, context }, timeoutMs, onBridge });

  it("sends one character past the job's limits of a result or an error, and only the size of a state past its own", async () => {
    const huge = [
      'def f(what: str):',
      '    if what == "error":',
      '        raise ValueError("x" * 10_000_000)',
      '    context.state["big"] = "z" * 1000',
      '    return "é" * 10_000_000',
    ].join('\n');
    const limited = (what: string, stateMax: number) =>
      pool.run({
        kind: 'run',
        job: {
          ...jobOf(huge, context),
          args: { what },
          result_max_chars: 10,
          state_max_chars: stateMax,
        },
        timeoutMs: 10_000,
      });
    // The JSON of the result: its quote, then 10 characters.
    expect(await limited('result', 100)).toMatchObject({ ok: true, result: `"${'é'.repeat(10)}` });
    expect(await limited('error', 100)).toMatchObject({ ok: false, error: 'Error: Valu' });
    const withheld = await limited('result', 100);
    expect(withheld).toMatchObject({ state_chars: '{"n":1,"big":""}'.length + 1000 });
    expect(withheld).not.toHaveProperty('state');
    expect(await limited('result', 2000)).toMatchObject({ state: { n: 1, big: 'z'.repeat(1000) } });
  });

  it('refuses a call into the engine over 16 MiB in the worker, as a failed request', async () => {
    const asked: unknown[] = [];
    const onBridge = (request: unknown) => (asked.push(request), Promise.resolve({ text: 'ok' }));
    const code = [
      'def f():',
      '    big = "x" * (16 * 1024 * 1024)',
      '    said = [tools.upload({"data": big})]',
      '    try:',
      '        ces_requests.post("https://api.example.com/upload", data=big)',
      '    except ces_requests.RequestException as e:',
      '        said.append(str(e))',
      '    return said + [tools.upload({"data": "small"})]',
    ].join('\n');
    const why = 'the request is larger than 16 MiB';
    const reply = await run(code, 'f', {}, 10_000, onBridge);
    expect(reply).toMatchObject({ ok: true });
    expect(JSON.parse(reply.result as string)).toEqual([
      `Error: tool request failed: ${why}`,
      why,
      'ok',
    ]);
    expect(asked).toHaveLength(1);
  });
});
