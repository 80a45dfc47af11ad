import { spawn } from 'node:child_process';
import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtEngineEnv, ENGINE_NODE } from './support/built-engine.js';
import { useFakeLlm } from './support/fake-llm.js';
import { writeToolsFile } from './support/tools-file.js';
import { processesWith } from './support/processes.js';

const HELLO = `def hello(name: str) -> str:
    """Says hello."""
    return "hi " + name
`;

/** The built engine with `env`, and a promise of the moment `processes` of it map their routes. */
function startEngine(env: Record<string, string>, processes = 1) {
  const child = spawn(ENGINE_NODE, ['dist/main.js'], {
    env: builtEngineEnv({ PORT: '0', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const run = { child, output: '' };
  const exited = new Promise<number | null>((done) => child.on('exit', done));
  // Its modules are being made ready: the routes are mapped, the interpreters load.
  const initialising = new Promise<void>((ready) => {
    const onData = (d: Buffer) => {
      run.output += d.toString();
      const mapped = run.output.match(/"msg":"Mapped \{\/health, GET\} route"/g) ?? [];
      if (mapped.length >= processes) ready();
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
  });
  return Object.assign(run, { exited, initialising });
}

describe('a signal during start-up (code tools loading)', () => {
  const { url } = useFakeLlm();

  it.each(['1', '2'])(
    'stops the engine once its modules are ready, without listening, and exits 0 (ENGINE_PROCESSES=%s)',
    async (processes) => {
      // Named in the code tools processes' command line: theirs, not another test's.
      const packages = mkdtempSync(join(tmpdir(), 'engine-packages-'));
      const engine = startEngine(
        {
          LLM_BASE_URL: url(),
          LLM_MODEL: 'fake',
          LLM_TOOLS_FILE: writeToolsFile([{ type: 'python', code: HELLO }]),
          CODE_TOOLS_PACKAGES_DIR: packages,
          ENGINE_PROCESSES: processes,
        },
        Number(processes),
      );
      await engine.initialising;
      engine.child.kill('SIGTERM');
      expect(await engine.exited).toBe(0);
      const { output } = engine;
      expect(output).toContain('SIGTERM during start-up: stopping once it is done');
      expect(output).toContain('started: stopping without listening, as asked');
      expect(output).not.toContain('listening on');
      expect(output).not.toContain('"level":"error"');
      // Its code tools processes were ended with it, not left to finish loading.
      expect(processesWith(packages)).toEqual([]);
    },
    40_000,
  );
});

describe('a second signal during start-up', () => {
  const { url } = useFakeLlm();
  // An MCP server that takes the connection and never answers: start-up waits 15 s for it.
  const held: Socket[] = [];
  const silent = createServer((socket) => held.push(socket));
  beforeAll(() => new Promise<void>((done) => silent.listen(0, '127.0.0.1', done)));
  afterAll(() => {
    for (const socket of held) socket.destroy();
    return new Promise((done) => silent.close(done));
  });

  it('ends the process at once, with code 1, saying it did not wait for the start-up', async () => {
    const { port } = silent.address() as AddressInfo;
    const engine = startEngine({
      LLM_BASE_URL: url(),
      LLM_MODEL: 'fake',
      LLM_TOOLS_FILE: writeToolsFile([
        { type: 'mcp', name: 'lookup', url: `http://127.0.0.1:${port}/mcp` },
      ]),
    });
    await engine.initialising;
    engine.child.kill('SIGTERM');
    // Past a second: a second signal, not the first told twice.
    await new Promise((r) => setTimeout(r, 1200));
    const againAt = performance.now();
    engine.child.kill('SIGTERM');
    expect(await engine.exited).toBe(1);
    expect(performance.now() - againAt).toBeLessThan(3000);
    expect(engine.output).toContain('SIGTERM during start-up: stopping once it is done');
    expect(engine.output).toContain('SIGTERM again: exiting now, without waiting for the start-up');
  }, 30_000);
});
