import fc from 'fast-check';
import { chaosOptions, expectPlainErrors, FAULT_WORDS } from './support/chaos-checks.js';
import { answersOn, turnWithCalls } from './support/calls-answered.js';
import { sseCall, sseText } from './support/fake-llm.js';
import { postTools } from './support/tools-file.js';
import { useEngineRig } from './support/turn-harness.js';
import { WsClient, type Msg } from './support/ws-client.js';

/** What every source has: the modules and helpers its fragments use. */
const PRELUDE = `import json, sys, os, math, time, datetime, decimal, builtins

class Weird:
    def __repr__(self):
        raise RuntimeError("no repr")
    __str__ = __repr__

class BadStr(Exception):
    def __str__(self):
        raise RuntimeError("no str")

def deep(n):
    out = []
    for _ in range(n):
        out = [out]
    return out

def loop():
    out = []
    out.append(out)
    return out

def recurse(n):
    return recurse(n + 1) + 1
`;

/** Python values an admin's code may hand back, or keep, or raise with. */
const value = fc.constantFrom(
  'None',
  'True',
  '2**200',
  '-1.5',
  "float('nan')",
  "float('inf')",
  "'text'",
  "'half \\ud800'",
  "'\\x00\\x1b[31m'",
  "'x' * 50000",
  "b'\\xff\\x00'",
  'bytearray(3)',
  "[1, 'a', None]",
  '(1, 2)',
  '{1, 2}',
  "{'a': {'b': [1]}}",
  "{1: 'a', (1, 2): 3}",
  "{'a': float('nan')}",
  'object()',
  'lambda: 1',
  'range(3)',
  'iter([1])',
  'complex(1, 2)',
  'Ellipsis',
  'datetime.datetime(2026, 1, 2, 3, 4)',
  "decimal.Decimal('1.10')",
  'Weird()',
  'deep(3000)',
  'loop()',
  'sys',
  'context',
  'context.state',
  'tools',
  '_session',
);

/** Statements before the function's last: some fail, some leave things behind in the worker. */
const statement = fc.oneof(
  { weight: 2, arbitrary: value.map((v) => `context.state['k'] = ${v}`) },
  value.map((v) => `print(${v})`),
  value.map((v) => `json.dumps(${v})`),
  value.map((v) => `context.report_progress(${v}, 2, 'half')`),
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      "print('x' * 100000)",
      "sys.stdout.write('out')",
      "sys.stderr.write('err')",
      'time.sleep(0.02)',
      'sys.setrecursionlimit(60)',
      "os.environ['X'] = '1'",
      "del context.state['nope']",
      "open('/tmp/kept.txt', 'w').write('a')",
      "os.listdir('/')",
      "__import__('nothing_such')",
      'context.state.clear()',
      'builtins.print = None',
      "sys.modules['json'] = None",
      'x = [0] * 10**6',
    ),
  },
);

/** How the function ends: a value, an exception of any kind, an exit, a recursion. */
const ending = fc.oneof(
  { weight: 3, arbitrary: value.map((v) => `return ${v}`) },
  value.map((v) => `raise Exception(${v})`),
  fc.constantFrom(
    "raise ValueError('bad')",
    'raise BadStr()',
    "raise BaseException('base')",
    'raise KeyboardInterrupt',
    'raise GeneratorExit()',
    'raise MemoryError()',
    'raise StopIteration()',
    "raise RuntimeError('x' * 100000)",
    'raise SystemExit',
    'sys.exit(3)',
    'os._exit(3)',
    'return recurse(0)',
    'return',
  ),
);

/** A tool whose function runs `lines`. */
const sourceOf = (lines: string[]) => `${PRELUDE}
def run(x: str = "") -> object:
    """Runs what its admin wrote."""
${lines.map((line) => `    ${line}`).join('\n')}
`;
const source = fc
  .record({ body: fc.array(statement, { maxLength: 3 }), last: ending })
  .map(({ body, last }) => sourceOf([...body, last]));

/**
 * Code tools of random sources (values of every kind returned, kept in context.state, printed,
 * raised with; exits, recursion, the worker's modules changed), each set through /api/tools and
 * called: each call gets one `tool_result` and the model one text within its bound, never in a
 * JavaScript fault's words, and the session and the next code tool answer on.
 */
describe('code tools of random sources', () => {
  const rig = useEngineRig(() => ({
    LLM_MODEL: 'm',
    CODE_TOOLS_WORKERS: '1',
    LLM_TOOL_RESULT_MAX_CHARS: '500',
  }));

  it('each call is answered, and the next code tool runs', async () => {
    const outcomes = new Set<boolean>();
    let runs = 0;
    const ws = await WsClient.connect(rig.engine.wsUrl);
    try {
      await fc.assert(
        fc.asyncProperty(source, async (code) => {
          const res = await postTools(rig.engine.httpUrl, [
            { type: 'python', name: 'run', code, timeout_secs: 2 },
          ]);
          expect([res.status, await res.text()]).toEqual([200, expect.any(String)]);
          rig.llm.reset();
          const id = `call_${++runs}`;
          rig.llm.enqueue(sseCall(id, 'run'), sseText(['Done.']));
          const [{ result, read }] = (await turnWithCalls(rig.llm, ws, [id])) as [
            { result: Msg; read: string },
          ];
          outcomes.add(result.ok === true);
          // A failure as a traceback's last line says it: `Error: ValueError: bad`.
          if (result.ok !== true) expect(read).toMatch(/^Error: \w+(: |$)/);
          expect(read.length).toBeLessThanOrEqual(500 + ' … [truncated]'.length);
          expect(read).not.toMatch(FAULT_WORDS);
          expectPlainErrors(ws.messages);
        }),
        {
          ...chaosOptions(Number(process.env.CHAOS_RUNS ?? 25)),
          // Each outcome at least once, however few runs the time limit lets through.
          examples: [[sourceOf(['return 1'])], [sourceOf(['raise ValueError("bad")'])]],
        },
      );
      await answersOn(rig.llm, ws);
    } finally {
      ws.close();
    }
    expect([...outcomes].sort()).toEqual([false, true]);
  }, 240_000);
});
