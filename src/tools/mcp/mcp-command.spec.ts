import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ToolDefinitionInput } from '../tool-definition.js';
import {
  commandKey,
  commandLine,
  filledCommand,
  mcpCommandOf,
  scriptFiles,
} from './mcp-command.js';

const env = { TOOL_SECRET_KEY: 'k3y-value', LLM_API_KEY: 'engine-key' };
const at = "tools.json: tool #0 'crm'";
const of = (def: ToolDefinitionInput, commands: boolean | ReadonlySet<string> = true) =>
  mcpCommandOf({ type: 'mcp', name: 'crm', ...def }, at, { commands, baseDir: '/srv/tools', env });

describe('mcpCommandOf', () => {
  it('reads the command, its arguments, environment and directory (relative to the tools file)', () => {
    expect(
      of({
        command: 'uvx',
        args: ['mcp-crm', '--key=${TOOL_SECRET_KEY}'],
        env: { A: '1' },
        cwd: 'crm',
      }),
    ).toEqual({
      stdio: {
        command: 'uvx',
        args: ['mcp-crm', '--key=${TOOL_SECRET_KEY}'],
        env: { A: '1' },
        cwd: '/srv/tools/crm',
        files: [],
        revision: '',
      },
      secrets: { TOOL_SECRET_KEY: 'k3y-value' },
    });
    expect(of({ command: 'crm-server', cwd: '/opt/crm' })!.stdio).toEqual({
      command: 'crm-server',
      args: [],
      env: {},
      cwd: '/opt/crm',
      files: [],
      revision: '',
    });
    expect(of({ command: 'crm-server' })!.stdio.cwd).toBe('/srv/tools');
    expect(of({ url: 'https://crm.internal/mcp' })).toBeUndefined();
  });

  it.each([
    [
      {},
      "give exactly one of 'url' (a server at an address) and 'command' (a server the engine runs)",
    ],
    [
      { url: 'https://crm.internal/mcp', command: 'crm' },
      "give exactly one of 'url' (a server at an address) and 'command' (a server the engine runs)",
    ],
    [
      { command: 'crm', headers: { A: 'b' } },
      "field 'headers' is not used with 'command' (it goes with 'url')",
    ],
    [
      { command: 'crm', oauth2: { token_url: 'https://id/t', client_id: 'c', client_secret: 's' } },
      "field 'oauth2' is not used with 'command' (it goes with 'url')",
    ],
    [
      { url: 'https://crm.internal/mcp', args: ['x'] },
      "field 'args' is not used with 'url' (it goes with 'command')",
    ],
    [
      { url: 'https://crm.internal/mcp', env: {} },
      "field 'env' is not used with 'url' (it goes with 'command')",
    ],
    [
      { url: 'https://crm.internal/mcp', cwd: '.' },
      "field 'cwd' is not used with 'url' (it goes with 'command')",
    ],
    [
      { command: 'crm', env: { USER_TOKEN: '${session.token}' } },
      "field 'env.USER_TOKEN' has a session variable: one server process serves every session",
    ],
    [
      { command: 'crm', args: ['--user=${session.user}'] },
      "field 'args[0]' has a session variable: one server process serves every session",
    ],
    [
      { command: 'crm', env: { K: '${LLM_API_KEY}' } },
      "field 'env.K' refers to ${LLM_API_KEY}: only TOOL_SECRET_* environment variables and ${session.NAME} variables can be used",
    ],
    [
      { command: 'crm', args: ['${TOOL_SECRET_UNSET}'] },
      "field 'args[0]' refers to ${TOOL_SECRET_UNSET}, which is not set in the environment",
    ],
  ])('refuses %j', (def, message) => {
    expect(() => of(def as ToolDefinitionInput)).toThrow(`${at}: ${message}`);
  });

  it('runs a command only where any may be run, or one of those allowed as written', () => {
    const def = { command: 'crm', args: ['--fast'] };
    const refusal = `${at}: field 'command': an MCP server run as a command is declared in the tools file (LLM_TOOLS_FILE); over the API a set may keep one the file declares, as the file writes it, but not run another program`;
    expect(() => of(def, false)).toThrow(refusal);
    const allowed = new Set([commandKey(def)]);
    expect(of(def, allowed)!.stdio.command).toBe('crm');
    expect(() => of({ ...def, args: ['--slow'] }, allowed)).toThrow(refusal);
    expect(() => of({ ...def, env: { A: '1' } }, allowed)).toThrow(refusal);
    // An HTTP server needs no leave.
    expect(of({ url: 'https://crm.internal/mcp' }, false)).toBeUndefined();
  });
});

describe('scriptFiles', () => {
  it('names the files among the program and its arguments, and changes when one is written', () => {
    const dir = mkdtempSync(join(tmpdir(), 'engine-mcp-'));
    writeFileSync(join(dir, 'server.mjs'), 'console.log(1);');
    const words = [
      process.execPath,
      'server.mjs',
      '--port=3',
      'missing.mjs',
      '${TOOL_SECRET_X}',
      '.',
    ];
    const before = scriptFiles(words, dir);
    expect(before.files).toEqual([process.execPath, join(dir, 'server.mjs')]);
    expect(scriptFiles(words, dir)).toEqual(before);
    writeFileSync(join(dir, 'server.mjs'), 'console.log(2); // edited');
    const after = scriptFiles(words, dir);
    expect(after.files).toEqual(before.files);
    expect(after.revision).not.toBe(before.revision);
  });
});

describe('filledCommand and commandLine', () => {
  const stdio = {
    command: 'crm server',
    args: ['--key=${TOOL_SECRET_KEY}', 'plain'],
    env: { KEY: '${TOOL_SECRET_KEY}', MODE: 'x' },
    cwd: resolve('/srv'),
  };
  it('fills in the secrets for the process, and shows the command line without them', () => {
    expect(filledCommand(stdio, { TOOL_SECRET_KEY: 'k3y' })).toEqual({
      command: 'crm server',
      args: ['--key=k3y', 'plain'],
      env: { KEY: 'k3y', MODE: 'x' },
      cwd: '/srv',
    });
    expect(commandLine(stdio)).toBe('"crm server" --key=${TOOL_SECRET_KEY} plain');
  });
});
