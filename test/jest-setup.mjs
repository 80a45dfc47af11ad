// What jest's own runner gives a spec file and jest-light-runner leaves out (jest.config.cjs runs
// the spec files with it, each worker loading the engine's modules once, not once a file): the
// time limits of tests and hooks, the `jest` object's timer calls with their options, the causes
// of a failure, and a process as the run began for each file (its environment, real timers, no
// spy left by a file before). Loaded once in each worker (setupFilesAfterEnv), after the runner
// has set its globals.
import { ModernFakeTimers } from '@jest/fake-timers';
import { getState } from 'jest-circus';
import { bind } from 'jest-each';
import { ModuleMocker } from 'jest-mock';

/** A test's or hook's time unless its third argument gives another, as jest's `testTimeout`. */
const TEST_TIMEOUT_MS = 20_000;

const mocker = new ModuleMocker(globalThis);
const timers = new ModernFakeTimers({ config: { fakeTimers: {} }, global: globalThis });
/** A `jest` call that returns `jest`, as jest's own do. */
const chained =
  (call) =>
  (...args) => {
    call(...args);
    return globalThis.jest;
  };

globalThis.jest = {
  fn: mocker.fn.bind(mocker),
  spyOn: mocker.spyOn.bind(mocker),
  clearAllMocks: mocker.clearAllMocks.bind(mocker),
  resetAllMocks: mocker.resetAllMocks.bind(mocker),
  restoreAllMocks: mocker.restoreAllMocks.bind(mocker),
  // With its options (`now`, `doNotFake`), which the runner's own drops.
  useFakeTimers: chained((config) => timers.useFakeTimers(config)),
  useRealTimers: chained(() => timers.useRealTimers()),
  setSystemTime: chained((time) => timers.setSystemTime(time)),
  advanceTimersByTime: chained((ms) => timers.advanceTimersByTime(ms)),
  runAllTimers: chained(() => timers.runAllTimers()),
  getTimerCount: () => timers.getTimerCount(),
  advanceTimersByTimeAsync: async (ms) => {
    await timers.advanceTimersByTimeAsync(ms);
    return globalThis.jest;
  },
  runAllTimersAsync: async () => {
    await timers.runAllTimersAsync();
    return globalThis.jest;
  },
};

// The real timers, for the limits: a test that fakes them is still limited in real time.
const { setTimeout, clearTimeout } = globalThis;

/** `fn` failing once it has taken `ms` (what it started goes on, as under jest's own runner). */
function limited(fn, ms = TEST_TIMEOUT_MS, what) {
  return () => {
    let timer;
    const late = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`Exceeded timeout of ${ms} ms for ${what}.`)), ms);
    });
    return Promise.race([Promise.resolve().then(fn), late])
      .catch((error) => {
        throw withCauses(error);
      })
      .finally(() => clearTimeout(timer));
  };
}

/**
 * `error` with the errors that caused it in its stack, which is all the runner prints (a property
 * test's failure says why only in its `cause`).
 */
function withCauses(error) {
  let cause = error?.cause;
  for (let depth = 0; cause != null && depth < 5; depth++, cause = cause.cause)
    error.stack += `\n[cause]: ${cause instanceof Error ? cause.stack : String(cause)}`;
  return error;
}

const startEnv = { ...process.env };
/**
 * The process as the run began, whatever the file before left (a failed test's spy, fake timers,
 * a variable set).
 */
function freshProcess() {
  mocker.restoreAllMocks();
  timers.useRealTimers();
  for (const key of Object.keys(process.env)) if (!(key in startEnv)) delete process.env[key];
  Object.assign(process.env, startEnv);
}
// The runner gives each file a state of jest-circus' own (`resetState`, a global under a symbol)
// just before it loads it: a fresh process then, before the file's own code runs.
const stateKey = Object.getOwnPropertySymbols(globalThis).find(
  (key) => globalThis[key] === getState(),
);
if (!stateKey) throw new Error("jest-circus' state is not where test/jest-setup.mjs looks");
let state = getState();
Object.defineProperty(globalThis, stateKey, {
  configurable: true,
  get: () => state,
  set: (fresh) => {
    state = fresh;
    freshProcess();
  },
});

/**
 * Checks a support module adds to run after each test's body, each throwing what it found in the
 * test (test/support/frame-check.ts: frames the engine sent that its protocol's document does not
 * describe). A test that failed fails with its own error; the checks then only forget.
 */
const afterTest = (globalThis[Symbol.for('engine-tests.afterTest')] ??= new Set());
function checked(fn) {
  return async () => {
    try {
      await fn();
    } catch (error) {
      for (const check of afterTest)
        try {
          check();
        } catch {
          // the test's own failure is what to tell
        }
      throw error;
    }
    for (const check of afterTest) check();
  };
}

/**
 * `it` or `test` with its time limit, `.each` and `.only` (a file tried alone) included; `.skip`
 * and `.todo` run nothing. The runner has no `.failing` or `.concurrent`: left undefined.
 */
function withLimit(test) {
  const limitedOf = (declare) => (name, fn, ms) =>
    declare(name, fn && limited(checked(fn), ms, 'a test'), ms);
  const limitedTest = limitedOf(test);
  limitedTest.each = bind(limitedTest);
  limitedTest.only = limitedOf(test.only);
  limitedTest.only.each = bind(limitedTest.only);
  limitedTest.skip = test.skip;
  limitedTest.todo = test.todo;
  return limitedTest;
}
globalThis.it = withLimit(globalThis.it);
globalThis.test = withLimit(globalThis.test);
for (const hook of ['beforeAll', 'afterAll', 'beforeEach', 'afterEach']) {
  const register = globalThis[hook];
  globalThis[hook] = (fn, ms) => register(limited(fn, ms, `a hook (${hook})`), ms);
}
