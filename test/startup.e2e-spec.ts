import { execSync, spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { writeToolsFile } from './support/tools-file.js';

/** The built engine, started as users and the acceptance suite start it: `node dist/main.js`. */
function ensureBuilt(): void {
  if (
    !existsSync('dist/main.js') ||
    statSync('dist/main.js').mtimeMs < statSync('src/bootstrap.ts').mtimeMs
  ) {
    execSync('npm run build', { stdio: 'ignore' });
  }
}

function run(
  env: Record<string, string>,
  waitForListen = false,
): Promise<{ code: number | null; output: string; url?: string; stop: () => void }> {
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

describe('node dist/main.js', () => {
  beforeAll(() => ensureBuilt(), 120000);

  it.each([
    [{ PORT: '-1' }, 'PORT="-1" is invalid: expected an integer from 0 to 65535'],
    [{ LLM_TOOL_MAX_ITERATIONS: 'abc' }, 'LLM_TOOL_MAX_ITERATIONS="abc" is invalid'],
  ])('stops start-up on a bad variable, naming it: %j', async (env, message) => {
    const result = await run(env);
    expect(result.code).toBe(1);
    expect(result.output).toContain(message);
  });

  it('stops start-up on a bad tools file, naming the file, the tool and the field', async () => {
    const file = writeToolsFile([{ name: 'ok', url: 'http://h/' }, { name: 'broken' }]);
    const result = await run({ LLM_TOOLS_FILE: file });
    expect(result.code).toBe(1);
    expect(result.output).toContain(`${file}: tool #1 'broken': field 'url' is required`);
  });

  it('starts with the variables of the acceptance suite and serves HTTP and its probe', async () => {
    const result = await run(
      {
        PORT: '0',
        LLM_BASE_URL: 'http://127.0.0.1:9/v1',
        LLM_MODEL: 'm',
        LLM_TOOLS_FILE: 'tools.example.json',
      },
      true,
    );
    try {
      const tools = (await (await fetch(`${result.url}/api/tools`)).json()) as {
        count: number;
        source: string;
      };
      expect(tools).toMatchObject({ count: 10, source: 'file' });
      expect((await fetch(`${result.url}/health`)).status).toBe(200);
    } finally {
      result.stop();
    }
  });
});
