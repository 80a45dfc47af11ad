import { spawn } from 'node:child_process';

export interface BuiltEngineRun {
  code: number | null;
  output: string;
  url?: string;
  stop: () => void;
}

/**
 * The built engine (built by test/global-setup.mjs), started as users and the acceptance suite
 * start it: `node dist/main.js`,
 * with only `env` (and PATH) in its environment. With `waitForListen`, resolves once it listens;
 * otherwise when it exits.
 */
export function runBuiltEngine(
  env: Record<string, string>,
  waitForListen = false,
): Promise<BuiltEngineRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['dist/main.js'], {
      env: { PATH: process.env.PATH ?? '', LOG_FORMAT: 'json', TTS_PROVIDER: 'none', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const onData = (d: Buffer) => {
      output += d.toString();
      const m = /listening on http:\/\/0\.0\.0\.0:(\d+)/.exec(output);
      if (waitForListen && m)
        resolve({
          code: null,
          output,
          url: `http://127.0.0.1:${m[1]}`,
          stop: () => child.kill('SIGTERM'),
        });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => resolve({ code, output, stop: () => undefined }));
  });
}
