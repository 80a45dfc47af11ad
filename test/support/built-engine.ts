import { execFile, spawn } from 'node:child_process';

/**
 * The Node.js the built engine runs on: `ENGINE_NODE` when set (CI sets the Docker image's major
 * release, .ci/run), else the one running the tests.
 */
export const ENGINE_NODE = process.env.ENGINE_NODE || process.execPath;

/** The built engine's whole environment: `env` over PATH, JSON logs and no speech. */
export function builtEngineEnv(env: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? '', LOG_FORMAT: 'json', TTS_PROVIDER: 'none', ...env };
}

export interface BuiltEngineRun {
  code: number | null;
  /** Output so far (at exit: all of it). */
  output: string;
  url?: string;
  /** The engine's process id (with ENGINE_PROCESSES, its primary's). */
  pid?: number;
  stop: () => void;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
}

/**
 * The built engine (built by test/global-setup.mjs), started as users and the acceptance suite
 * start it: `node dist/main.js` (on ENGINE_NODE),
 * with only `env` (and PATH) in its environment. With `waitForListen`, resolves once it listens;
 * otherwise when it exits.
 */
export function runBuiltEngine(
  env: Record<string, string>,
  waitForListen = false,
  /** With ENGINE_PROCESSES: how many processes must be listening. */
  listeners = 1,
): Promise<BuiltEngineRun> {
  return new Promise((resolve) => {
    const child = spawn(ENGINE_NODE, ['dist/main.js'], {
      env: builtEngineEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const exited = new Promise<number | null>((done) => child.on('exit', done));
    const onData = (d: Buffer) => {
      output += d.toString();
      const all = [...output.matchAll(/listening on http:\/\/0\.0\.0\.0:(\d+)/g)];
      const m = all.length >= listeners ? all[0] : undefined;
      if (waitForListen && m)
        resolve({
          code: null,
          get output() {
            return output;
          },
          url: `http://127.0.0.1:${m[1]}`,
          pid: child.pid,
          stop: () => child.kill('SIGTERM'),
          exited,
        });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then((code) => resolve({ code, output, stop: () => undefined, exited }));
  });
}

/** How long a hook may take to start the built engine: a cold start on a busy two-core machine. */
export const ENGINE_START_MS = 60_000;

export type ListeningEngine = BuiltEngineRun & { url: string; wsUrl: string };

/**
 * The built engine listening on a free port with `env` (and PORT=0), kept in `started` for the
 * suite's afterAll to stop; throws with its output when it does not start. `listeners`: how many
 * of ENGINE_PROCESSES' processes must be listening.
 */
export async function listeningEngine(
  env: Record<string, string>,
  started: BuiltEngineRun[],
  listeners = 1,
): Promise<ListeningEngine> {
  const engine = await runBuiltEngine({ PORT: '0', ...env }, true, listeners);
  started.push(engine);
  const { url } = engine;
  if (!url) throw new Error(`the engine did not start:\n${engine.output}`);
  return Object.assign(engine, { url, wsUrl: `${url.replace('http', 'ws')}/ws` });
}

/**
 * Starts built engines for one describe block (as `listeningEngine` does, in its hooks or tests)
 * and stops them after its tests, waiting for them to exit, in an afterAll declared where this is
 * called: call it before the hooks that stop the servers the engines use.
 */
export function useBuiltEngines(): (
  env: Record<string, string>,
  listeners?: number,
) => Promise<ListeningEngine> {
  const started: BuiltEngineRun[] = [];
  afterAll(async () => {
    const runs = started.splice(0);
    for (const run of runs) run.stop();
    await Promise.all(runs.map((run) => run.exited));
  });
  return (env, listeners = 1) => listeningEngine(env, started, listeners);
}

/**
 * The built engine for one describe block, with `env()`'s settings (read in its beforeAll, after
 * the block's earlier hooks; servers it names may be started there or in `env`): started on a free
 * port before the block's tests, stopped after them (see useBuiltEngines). `listeners`: how many
 * of ENGINE_PROCESSES' processes must be listening.
 */
export function useBuiltEngine(
  env: () => Record<string, string> | Promise<Record<string, string>>,
  listeners = 1,
): () => ListeningEngine {
  const start = useBuiltEngines();
  let engine: ListeningEngine | undefined;
  beforeAll(async () => {
    engine = await start(await env(), listeners);
  }, ENGINE_START_MS);
  return () => {
    if (!engine) throw new Error('the engine was not started (see the beforeAll that failed)');
    return engine;
  };
}

/** useBuiltEngine with two processes (ENGINE_PROCESSES=2), both listening. */
export function useTwoProcesses(
  env: () => Record<string, string> | Promise<Record<string, string>>,
): () => ListeningEngine {
  return useBuiltEngine(async () => ({ ENGINE_PROCESSES: '2', ...(await env()) }), 2);
}

/**
 * Runs one of the project's commands (`dist/eval/cli.js`, `scripts/mcp-entries.mjs`) on
 * ENGINE_NODE with `env` alone (and PATH): its exit code and what it wrote.
 */
export function runCommand(
  script: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(
      ENGINE_NODE,
      [script, ...args],
      { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 30_000 },
      (error, out, err) => resolve({ code: error ? Number(error.code) : 0, out, err }),
    );
  });
}
