import { execFileSync, spawn } from 'node:child_process';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { builtEngineEnv, ENGINE_NODE } from './support/built-engine.js';
import { useFakeLlm } from './support/fake-llm.js';
import { childPids } from './support/processes.js';

/** The Docker image's init (Debian's tini; .ci/run installs it). */
const TINI = '/usr/bin/tini';

/**
 * `command` as PID 1 of a new PID namespace, as in a container: the kernel drops the signals it
 * has no handler for. Signals are sent to it from outside, as `docker stop` and the kubelet do.
 */
function asPidOne(command: string[], env: Record<string, string>) {
  const namespace = process.getuid?.() === 0 ? [] : ['--user', '--map-root-user'];
  // (`--kill-child`: unshare killed, its child, PID 1, is too, and the namespace with it.)
  const child = spawn('unshare', [...namespace, '--pid', '--kill-child', ...command], {
    env: builtEngineEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const run = { output: '' };
  const onData = (d: Buffer) => (run.output += d.toString());
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise<number | null>((done) => child.on('exit', done));
  /** PID 1's id as seen from here (unshare's child). */
  const pidOne = async () => {
    for (let i = 0; i < 200; i++) {
      const [pid] = childPids(child.pid!);
      if (pid) return pid;
      await new Promise((r) => setTimeout(r, 5));
    }
    throw new Error(`no PID 1 under unshare:\n${run.output}`);
  };
  const shown = async (text: string) => {
    while (!run.output.includes(text)) await new Promise((r) => setTimeout(r, 2));
  };
  return Object.assign(run, { child, exited, pidOne, shown });
}

/**
 * Resolves once tini, process `pid`, has started its child: it holds the signals from before that
 * (as PID 1, before it does, it has no handler, and the kernel drops a SIGTERM).
 */
async function childStarted(pid: number): Promise<void> {
  for (let i = 0; i < 1000 && childPids(pid).length === 0; i++)
    await new Promise((r) => setTimeout(r, 1));
}

/** Resolves with the exit code, or 'still running' after `ms`. */
const within = (exited: Promise<number | null>, ms: number) =>
  Promise.race([exited, new Promise<string>((r) => setTimeout(() => r('still running'), ms))]);

describe('the engine as a container’s PID 1', () => {
  const { url } = useFakeLlm();
  const env = () => ({ PORT: '0', LLM_BASE_URL: url(), LLM_MODEL: 'fake' });
  const runs: ReturnType<typeof asPidOne>[] = [];
  afterEach(() => {
    for (const run of runs.splice(0)) run.child.kill('SIGKILL'); // PID 1 ends with it
  });

  it('without an init, ends on a SIGTERM during start-up, before it has its own stop', async () => {
    // Its key from a pipe nobody writes yet: the start-up waits there, in its first step.
    const key = join(mkdtempSync(join(tmpdir(), 'engine-key-')), 'llm-key');
    execFileSync('mkfifo', [key]);
    const run = asPidOne([ENGINE_NODE, 'dist/main.js'], { ...env(), LLM_API_KEY_FILE: key });
    runs.push(run);
    const pid = await run.pidOne();
    // Opened for writing once the engine opens it to read: it is then in its first step.
    const writer = await open(key, 'w');
    process.kill(pid, 'SIGTERM');
    await writer.write('sk-test\n');
    await writer.close();
    expect(await within(run.exited, 5000)).toBe(0);
    expect(run.output).toContain('SIGTERM during start-up: exiting at once');
    expect(run.output).not.toContain('Starting Nest application');
  }, 30_000);

  it('under the image’s init (tini), ends on a SIGTERM at any moment, and stops as always once it listens', async () => {
    expect(readFileSync('Dockerfile', 'utf8')).toMatch(
      new RegExp(`^ENTRYPOINT \\["${TINI}", "--"\\]$`, 'm'),
    );
    expect(existsSync(TINI)).toBe(true);
    // At once: as soon as tini holds the signals (before, as for any init, the kernel drops the
    // SIGTERM: `docker stop` that early is lost), before Node has started, let alone the engine.
    const early = asPidOne([TINI, '--', ENGINE_NODE, 'dist/main.js'], env());
    runs.push(early);
    const first = await early.pidOne();
    await childStarted(first);
    process.kill(first, 'SIGTERM');
    expect([0, 143]).toContain(await within(early.exited, 5000));

    const listening = asPidOne([TINI, '--', ENGINE_NODE, 'dist/main.js'], env());
    runs.push(listening);
    const pid = await listening.pidOne();
    await listening.shown('listening on');
    process.kill(pid, 'SIGTERM');
    expect(await within(listening.exited, 10_000)).toBe(0);
    expect(listening.output).toContain('SIGTERM: draining sessions');
  }, 30_000);
});
