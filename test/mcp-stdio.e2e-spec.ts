import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import { dirname, join, resolve } from 'node:path';
import { writeToolsFile } from './support/tools-file.js';
import { callOnce, useClientPerTest, useEngineRig } from './support/turn-harness.js';
import { alive, until } from './support/waiting.js';

const SERVER = resolve('test/support/mcp-stdio-server.mjs');

/** The processes whose command line holds `text` (read from /proc). */
function processesWith(text: string): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return readFileSync(`/proc/${d}/cmdline`, 'utf8').replaceAll('\0', ' ').includes(text);
      } catch {
        return false; // ended meanwhile
      }
    })
    .map(Number);
}

/**
 * MCP servers the engine runs itself (`"command"`): a program spoken to over its standard input
 * and output, started when its tools are first listed or called and kept for the next calls.
 */
describe('MCP tools of a server run as a command (stdio)', () => {
  let toolsFile = '';
  /** A server given arguments, environment and directory (two tools share its process). */
  const configured = {
    command: 'node',
    args: [SERVER, '--mode=${TOOL_SECRET_MODE}'],
    env: { GREETING: 'hello', ORDERS_KEY: '${TOOL_SECRET_ORDERS_KEY}' },
    cwd: 'work',
  };
  const rig = useEngineRig(() => {
    toolsFile = writeToolsFile([
      {
        type: 'mcp',
        name: 'add',
        command: process.execPath,
        args: [SERVER],
      },
      { type: 'mcp', name: 'whoami', ...configured },
      { type: 'mcp', name: 'crash', ...configured },
      { type: 'mcp', name: 'big', command: process.execPath, args: [SERVER] },
      { type: 'mcp', name: 'fail', command: process.execPath, args: [SERVER] },
      // A program that is not there, and one that exits before any session: their tools wait.
      { type: 'mcp', name: 'missing', command: 'no-such-mcp-server-program' },
      { type: 'mcp', name: 'broken', command: process.execPath, args: [SERVER, '--fail-start'] },
    ]);
    execFileSync('mkdir', ['-p', resolve(dirname(toolsFile), 'work')]);
    return {
      LLM_MODEL: 'm',
      LLM_TOOLS_FILE: toolsFile,
      LLM_TOOL_MAX_RESPONSE_BYTES: '100000',
      LLM_TOOL_BREAKER_FAILURES: '2',
      TOOL_SECRET_ORDERS_KEY: 'k3y-0f-0rders',
      TOOL_SECRET_MODE: 'quiet',
      CODE_TOOLS_WORKERS: '1',
    };
  });
  const client = useClientPerTest(rig);
  const call = (name: string, args: Record<string, unknown> = {}) =>
    callOnce(rig, client.ws, name, args);
  const whoami = async () => JSON.parse((await call('whoami')).read) as Record<string, unknown>;

  it("offers the tools the server lists and calls them over the process's stdio", async () => {
    const { read, result } = await call('add', { a: 2, b: 3 });
    expect(read).toBe('5');
    expect(result).toMatchObject({ name: 'add', ok: true });
    expect(rig.llm.offered(0)).toEqual(['add', 'whoami', 'crash', 'big', 'fail']);
    const add = rig.llm.requests[0]!.body.tools[0].function;
    expect(add).toMatchObject({
      description: 'Adds two numbers.',
      parameters: { required: ['a', 'b'] },
    });
    expect((await call('fail')).read).toBe('Error: no such order');
  });

  it("runs it with its arguments, environment and directory, secrets filled in, none of the engine's variables", async () => {
    const me = await whoami();
    expect(me).toMatchObject({
      cwd: resolve(dirname(toolsFile), 'work'),
      // Filled in (the model reads the secret masked, as it reads the key).
      args: ['--mode=[secret]'],
      greeting: 'hello',
      engineEnv: [],
    });
    // The key reached the server; the model reads it masked.
    expect(me.key).toBe('[secret]');
    // One process serves the calls that follow.
    expect((await whoami()).pid).toBe(me.pid);
  });

  it('tells the model a call its server died under, and starts the server again for the next call', async () => {
    const before = (await whoami()).pid as number;
    const { read, result } = await call('crash');
    expect(read).toBe(
      'Error: tool request failed: the connection to the MCP server was lost: its process ended; it last said: fatal: out of cheese',
    );
    expect(result).toMatchObject({ ok: false });
    const after = (await whoami()).pid as number;
    expect(after).not.toBe(before);
    expect(alive(before)).toBe(false);
    // A server that dies under its calls is down: after LLM_TOOL_BREAKER_FAILURES (2) in a row,
    // the tool's calls are not sent for a while; the server's other tools are not affected.
    expect((await call('crash')).read).toMatch(/^Error: tool request failed: the connection/);
    expect((await call('crash')).read).toMatch(
      /^Error: tool request failed: not sent: the service is unavailable \(its last 2 calls failed\)/,
    );
    expect((await whoami()).pid).not.toBe(after);
  });

  it('ends a server whose answer is over LLM_TOOL_MAX_RESPONSE_BYTES, and says so', async () => {
    expect((await call('big', { bytes: 1000 })).read).toBe('x'.repeat(1000));
    expect((await call('big', { bytes: 200_000 })).read).toBe(
      'Error: tool request failed: the connection to the MCP server was lost: an answer from the MCP server is larger than LLM_TOOL_MAX_RESPONSE_BYTES (100000 bytes)',
    );
    expect((await call('add', { a: 1, b: 1 })).read).toBe('2');
  });

  it('leaves out the tools of a server that cannot start, saying why in /health and /offered', async () => {
    const health = (await (await fetch(`${rig.engine.httpUrl}/health`)).json()) as any;
    // (and `crash`, whose circuit the test before opened)
    expect(health.tools.unavailable).toEqual(['crash', 'missing', 'broken']);
    const offered = async (name: string) =>
      (await (await fetch(`${rig.engine.httpUrl}/api/tools/${name}/offered`)).json()) as any;
    expect((await offered('missing')).message).toContain(
      'cannot list the tools of the MCP server: cannot start the MCP server (ENOENT: no-such-mcp-server-program)',
    );
    expect((await offered('broken')).message).toContain(
      'cannot list the tools of the MCP server: the connection to the MCP server was lost: its process ended; it last said: cannot open database /data/orders.db',
    );
  });

  it('never runs a command sent over the API, but keeps the ones the tools file runs', async () => {
    const post = async (body: unknown, path = '/api/tools', method = 'POST') => {
      const res = await fetch(`${rig.engine.httpUrl}${path}`, {
        method,
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    const listed = (await (await fetch(`${rig.engine.httpUrl}/api/tools`)).json()) as any;
    const touch = { type: 'mcp', name: 'evil', command: 'touch', args: ['/tmp/pwned-by-api'] };
    const refused = await post([...listed.tools, touch]);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe(
      "request body: tool #7 'evil': field 'command': an MCP server run as a command is declared in the tools file (LLM_TOOLS_FILE); over the API a set may keep one the file declares, as the file writes it, but not run another program",
    );
    // A file's command with other arguments is another program run.
    const changed = { ...listed.tools[0], args: [SERVER, '--noise'] };
    expect((await post([changed])).status).toBe(400);
    expect((await post(touch, '/api/tools/evil', 'PUT')).status).toBe(400);
    // The file's own definitions, sent back as they are, with another tool.
    const weather = { name: 'weather', url: 'http://127.0.0.1:9/w', method: 'GET' };
    const kept = await post([listed.tools[0], listed.tools[1], weather]);
    expect(kept.body).toMatchObject({ count: 3 });
    expect(kept.status).toBe(200);
    expect((await call('add', { a: 4, b: 4 })).read).toBe('8');
    // And a DELETE of the other tool, which sends the rest back.
    const gone = await fetch(`${rig.engine.httpUrl}/api/tools/weather`, { method: 'DELETE' });
    expect(gone.status).toBe(200);
    expect((await call('add', { a: 5, b: 4 })).read).toBe('9');
  });

  it('stops a server that no tool in use runs any more', async () => {
    const listed = (await (await fetch(`${rig.engine.httpUrl}/api/tools`)).json()) as any;
    const [add, who] = listed.tools;
    const pid = (await whoami()).pid as number;
    const post = (tools: unknown[]) =>
      fetch(`${rig.engine.httpUrl}/api/tools`, { method: 'POST', body: JSON.stringify(tools) });
    expect((await post([add])).status).toBe(200);
    await until(() => !alive(pid), 'the unused server process to end', 8000);
    expect((await call('add', { a: 1, b: 2 })).read).toBe('3');
    // A set refused once its server was started to list it: that server stops too.
    const refused = await post([add, who, { ...who, name: 'nope' }]);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { message: string }).message).toMatch(
      /tool #2 'nope': field 'name': the MCP server has no tool 'nope'/,
    );
    await until(
      () => processesWith(`${SERVER} --mode=quiet`).length === 0,
      "the refused set's server to end",
      8000,
    );
    // A set only checked (a dry run) starts the server to list it, then stops it.
    const dry = await fetch(`${rig.engine.httpUrl}/api/tools?dry_run=true`, {
      method: 'POST',
      body: JSON.stringify([add, who]),
    });
    expect(await dry.json()).toMatchObject({ count: 2, dry_run: true });
    await until(
      () => processesWith(`${SERVER} --mode=quiet`).length === 0,
      "the checked set's server to end",
      8000,
    );
    // Declared by the tools file, it may be run again.
    expect((await post([add, who])).status).toBe(200);
    expect((await whoami()).pid).not.toBe(pid);
  });

  it('stops the servers it runs when it stops', async () => {
    const pid = (await whoami()).pid as number;
    expect(alive(pid)).toBe(true);
    await rig.engine.stop();
    await until(() => !alive(pid), 'the server process to end', 8000);
  });
});

describe('MCP servers run as commands, in a tools file or a script edited while the engine runs', () => {
  let toolsFile = '';
  /** The script the tool runs: the test server, imported (its packages resolve from its place). */
  const script = join(mkdtempSync(join(tmpdir(), 'engine-mcp-')), 'server.mjs');
  const tool = (mode: string) => ({
    type: 'mcp',
    name: 'whoami',
    command: process.execPath,
    args: [script, `--mode=${mode}`],
  });
  const rig = useEngineRig(() => {
    writeFileSync(script, `import ${JSON.stringify(pathToFileURL(SERVER).href)};\n`);
    toolsFile = writeToolsFile([tool('first')]);
    return { LLM_MODEL: 'm', LLM_TOOLS_FILE: toolsFile, LLM_TOOLS_FILE_WATCH_SECS: '0.1' };
  });
  const client = useClientPerTest(rig);
  const whoami = async () =>
    JSON.parse((await callOnce(rig, client.ws, 'whoami')).read) as { pid: number; args: string[] };

  it('runs the command as the file now writes it, and stops the one it wrote before', async () => {
    const first = await whoami();
    expect(first.args).toEqual(['--mode=first']);
    writeFileSync(toolsFile, JSON.stringify([tool('second')]));
    await until(() => !alive(first.pid), 'the server of the old command to end', 8000);
    const second = await whoami();
    expect(second.args).toEqual(['--mode=second']);
    expect(alive(second.pid)).toBe(true);
  });

  it('starts the server anew once its script is written, and stops the one started before', async () => {
    const before = await whoami();
    appendFileSync(script, '\n// edited\n');
    await until(() => !alive(before.pid), 'the server of the old script to end', 8000);
    const after = await whoami();
    expect(after.pid).not.toBe(before.pid);
    expect(after.args).toEqual(['--mode=second']);
  });
});
