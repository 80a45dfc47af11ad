import { CodeToolPool } from './code-tool-pool.js';
import { jobContext, jobOf } from '../../test/support/code-tool-job.js';

// One worker, so every call below runs in the interpreter the previous call ran in, as calls of
// different sessions do on a busy engine.
describe('Code tools: what a call changes in its interpreter is undone before the next call', () => {
  const pool = new CodeToolPool({ workers: 1, memoryMb: 1024, packagesDir: '' });
  beforeAll(() => pool.start(), 60000);
  afterAll(() => pool.close());

  const call = (session: string, body: string) => {
    const code = `def f():\n${body
      .split('\n')
      .map((line) => `    ${line}`)
      .join('\n')}`;
    return pool.run({
      kind: 'run',
      job: jobOf(code, jobContext(session)),
      timeoutMs: 10000,
    });
  };
  const run = async (session: string, body: string) => {
    const reply = await call(session, body);
    expect(reply).toMatchObject({ ok: true });
    return JSON.parse(reply.result as string);
  };

  it('module attributes, builtins and module classes patched by one session are back for the next', async () => {
    await run(
      'a',
      [
        'import json, builtins, sys',
        'json.dumps = lambda *a, **k: "patched"',
        'json.JSONEncoder.default = lambda self, o: "patched"',
        'builtins.len = lambda x: -1',
        'builtins.leaked = "session a"',
        'del builtins.sorted',
        'sys.excepthook = None',
        'return "done"',
      ].join('\n'),
    );
    expect(
      await run(
        'b',
        [
          'import json, builtins, sys',
          'class Point: pass',
          'try:',
          '    json.dumps(Point())',
          'except TypeError as e:',
          '    encoder = str(e)',
          'return [json.dumps([1]), len("abc"), hasattr(builtins, "leaked"), sorted([2, 1]), sys.excepthook is not None, encoder]',
        ].join('\n'),
      ),
    ).toEqual(['[1]', 3, false, [1, 2], true, 'Object of type Point is not JSON serializable']);
  });

  it("requests' classes and exceptions patched by one session are back for the next", async () => {
    await run(
      'a',
      [
        'import requests',
        'requests.exceptions.Timeout.__str__ = lambda self: "patched"',
        'requests.auth.HTTPBasicAuth.__call__ = lambda self, r: r',
        'requests.exceptions.Timeout = None',
        'type(requests).get = lambda self, url, **kw: "patched"',
        'requests.Response.json = lambda self: "patched"',
        'return "done"',
      ].join('\n'),
    );
    expect(
      await run(
        'b',
        [
          'import requests',
          'from requests.exceptions import Timeout',
          'return [Timeout.__name__, type(requests).get.__name__, requests.Response.json.__name__,',
          '        str(Timeout("late")), requests.auth.HTTPBasicAuth.__call__.__name__]',
        ].join('\n'),
      ),
    ).toEqual(['Timeout', 'get', 'json', 'late', '__call__']);
  });

  it('sys.path, os.environ, the working directory, the recursion limit and the decimal context are reset', async () => {
    expect(
      await run(
        'a',
        [
          'import sys, os, decimal',
          'sys.path.insert(0, "/tmp/elsewhere")',
          'os.environ["LEAKED"] = "session a"',
          'os.chdir("/tmp")',
          'sys.setrecursionlimit(60)',
          'decimal.getcontext().prec = 3',
          'return str(decimal.Decimal(1) / 3)',
        ].join('\n'),
      ),
    ).toBe('0.333');
    expect(
      await run(
        'b',
        [
          'import sys, os, decimal',
          'return ["/tmp/elsewhere" in sys.path, os.environ.get("LEAKED"), os.getcwd() != "/tmp", sys.getrecursionlimit() > 60, str(decimal.Decimal(1) / 3)]',
        ].join('\n'),
      ),
    ).toEqual([false, null, true, true, '0.3333333333333333333333333333']);
  });

  it("logging's handlers and levels are reset, and loggers a call made are let go", async () => {
    const configure = [
      'import logging',
      'logging.basicConfig(level=logging.DEBUG)',
      'log = logging.getLogger("crm")',
      'log.addHandler(logging.StreamHandler())',
      'log.setLevel(logging.DEBUG)',
      'log.debug("called")',
      'return [len(logging.root.handlers), len(log.handlers)]',
    ].join('\n');
    expect(await run('a', configure)).toEqual([1, 1]);
    expect(await run('b', configure)).toEqual([1, 1]);
    expect(
      await run(
        'c',
        'import logging\nreturn [len(logging.root.handlers), logging.root.level, "crm" in logging.Logger.manager.loggerDict]',
      ),
    ).toEqual([0, 30, false]);
  });

  it("warnings' filters are reset: a call that silences warnings does not silence the next", async () => {
    const count = [
      'import warnings',
      'with warnings.catch_warnings(record=True) as seen:',
      '    warnings.warn("check me")',
      'return len(seen)',
    ].join('\n');
    await run('a', 'import warnings\nwarnings.filterwarnings("ignore")\nreturn 1');
    expect(
      await run(
        'b',
        'import warnings\nreturn len([f for f in warnings.filters if f[0] == "ignore" and f[2] is Warning])',
      ),
    ).toBe(0);
    expect(await run('c', count)).toBe(1);
  });

  it('random is reseeded after a call that seeded it: the next session does not get the sequence it chose', async () => {
    const third = await run(
      'a',
      [
        'import random',
        'random.seed(1)',
        'third = [random.random() for _ in range(3)][2]',
        'random.seed(1)',
        'random.random(); random.random()',
        'return third',
      ].join('\n'),
    );
    const next = await run('b', 'import random\nreturn random.random()');
    expect(next).not.toBe(third);
  });

  it('modules a call imported stay usable, with what the call changed in them undone', async () => {
    await run(
      'a',
      [
        'import fractions, email.utils, importlib',
        'fractions.Fraction.__add__ = lambda self, other: "patched"',
        'fractions.leaked = 1',
        'importlib.import_module("colorsys").leaked = 1',
        'return email.utils.quote("a")',
      ].join('\n'),
    );
    expect(
      await run(
        'b',
        [
          'import fractions, email.utils, colorsys',
          'return [str(fractions.Fraction(1, 2) + fractions.Fraction(1, 3)), hasattr(fractions, "leaked"), hasattr(colorsys, "leaked"), email.utils.quote("b\\"")]',
        ].join('\n'),
      ),
    ).toEqual(['5/6', false, false, 'b\\"']);
  });

  it('keeps a module loaded with importlib.import_module, with what the call changed in it undone', async () => {
    await run('a', 'import importlib\nimportlib.import_module("graphlib").leaked = 1\nreturn 1');
    expect(
      await run(
        'b',
        'import sys\nkept = "graphlib" in sys.modules\nimport graphlib\norder = list(graphlib.TopologicalSorter({"b": {"a"}}).static_order())\nreturn [kept, hasattr(graphlib, "leaked"), order]',
      ),
    ).toEqual([true, false, ['a', 'b']]);
  });

  it('never keeps a module half made, or one made by hand, however it was loaded', async () => {
    // Loaded by hand: its own imports end while it is still part way through its code.
    await run(
      'a',
      [
        'import importlib.util, sys',
        'spec = importlib.util.find_spec("shlex")',
        'module = importlib.util.module_from_spec(spec)',
        'sys.modules["shlex"] = module',
        'spec.loader.exec_module(module)',
        // A module made by hand, holding this session's data, then an import.
        'import types',
        'sys.modules["settings_of_a"] = types.ModuleType("settings_of_a")',
        'sys.modules["settings_of_a"].card = "4111"',
        'import colorsys',
        'return module.split("a b")',
      ].join('\n'),
    );
    expect(
      await run(
        'b',
        'import shlex, sys\nreturn [shlex.split("c d"), "settings_of_a" in sys.modules]',
      ),
    ).toEqual([['c', 'd'], false]);
  });

  it('a call that breaks how Python writes JSON fails alone; the next call is served', async () => {
    expect(
      await call('a', 'import json\njson.JSONEncoder.encode = lambda self, o: "patched"\nreturn 1'),
    ).toMatchObject({ ok: false, error: expect.stringContaining('could not be read') });
    expect(await run('b', 'import json\nreturn json.dumps({"a": 1})')).toBe('{"a": 1}');
  });

  it('files a call wrote, and a module it wrote and imported, are gone for the next', async () => {
    await run(
      'a',
      [
        'import os, sys, site',
        'open("/tmp/session-a.txt", "w").write("card 4111")',
        'os.makedirs("notes/deep")',
        'open("notes/deep/n.txt", "w").write("x")',
        'folder = next(p for p in sys.path if p.endswith("site-packages"))',
        'open(folder + "/leaked_module.py", "w").write("SECRET = 1")',
        'import leaked_module',
        'return leaked_module.SECRET',
      ].join('\n'),
    );
    expect(
      await run(
        'b',
        [
          'import os',
          'try:',
          '    import leaked_module',
          '    imported = True',
          'except ImportError:',
          '    imported = False',
          'return [os.path.exists("/tmp/session-a.txt"), os.path.exists("notes"), imported]',
        ].join('\n'),
      ),
    ).toEqual([false, false, false]);
  });

  it('a worker whose interpreter cannot be put back is replaced', async () => {
    const started = pool.started;
    await run('a', 'import os\nhome = os.getcwd()\nos.chdir("/")\nos.rmdir(home)\nreturn home');
    expect(await run('b', 'import os\nreturn os.path.isdir(os.getcwd())')).toBe(true);
    expect(pool.started).toBe(started + 1);
  });
});
