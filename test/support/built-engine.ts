import { spawn } from 'node:child_process';

/**
 * The Node.js the built engine runs on: `ENGINE_NODE` when set (CI sets the Docker image's major
 * release, .ci/run), else the one running the tests.
 */
export const ENGINE_NODE = process.env.ENGINE_NODE || process.execPath;

export interface BuiltEngineRun {
  code: number | null;
  /** Output so far (at exit: all of it). */
  output: string;
  url?: string;
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
      env: { PATH: process.env.PATH ?? '', LOG_FORMAT: 'json', TTS_PROVIDER: 'none', ...env },
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
          stop: () => child.kill('SIGTERM'),
          exited,
        });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then((code) => resolve({ code, output, stop: () => undefined, exited }));
  });
}

/**
 * The built engine listening on a free port with `env` (and PORT=0), kept in `started` for the
 * suite's afterAll to stop; throws with its output when it does not start. `listeners`: how many
 * of ENGINE_PROCESSES' processes must be listening.
 */
export async function listeningEngine(
  env: Record<string, string>,
  started: BuiltEngineRun[],
  listeners = 1,
): Promise<BuiltEngineRun & { url: string; wsUrl: string }> {
  const engine = await runBuiltEngine({ PORT: '0', ...env }, true, listeners);
  started.push(engine);
  const { url } = engine;
  if (!url) throw new Error(`the engine did not start:\n${engine.output}`);
  return Object.assign(engine, { url, wsUrl: `${url.replace('http', 'ws')}/ws` });
}

/**
 * An engine of two processes (ENGINE_PROCESSES=2, a free port) for one describe block, with
 * `env()`'s settings (read in its beforeAll): started before the block's tests, stopped after.
 */
export function useTwoProcesses(
  env: () => Promise<Record<string, string>>,
): () => BuiltEngineRun & { url: string; wsUrl: string } {
  const started: BuiltEngineRun[] = [];
  let engine: (BuiltEngineRun & { url: string; wsUrl: string }) | undefined;
  beforeAll(async () => {
    engine = await listeningEngine({ ENGINE_PROCESSES: '2', ...(await env()) }, started, 2);
  }, 60_000);
  afterAll(async () => {
    for (const run of started) {
      run.stop();
      await run.exited;
    }
  });
  return () => engine!;
}
