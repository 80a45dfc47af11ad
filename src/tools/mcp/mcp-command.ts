/**
 * MCP servers the engine runs itself (`"command"`, the stdio transport): the definition's
 * command checked, and filled in for a call. Pure: no Nest import.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { egressEnvironment } from '../../common/egress.js';
import { ToolDefinitionError } from '../definition-error.js';
import { fileState } from '../file-watch.js';
import type { McpCommand, ToolDefinitionInput } from '../tool-definition.js';
import { resolveSecrets, SECRET_REFERENCE } from '../tool-secrets.js';

/** Fields of an MCP tool that go with `url` only, and with `command` only. */
const URL_ONLY = ['headers', 'oauth2'] as const;
const COMMAND_ONLY = ['args', 'env', 'cwd'] as const;

export interface CommandOptions {
  /**
   * Definitions that run a command are accepted: any (the tools file's), or those whose
   * `commandKey` is in the set (over the API: the commands the tools file runs, as it writes them).
   */
  commands?: boolean | ReadonlySet<string>;
  /** Where a relative `cwd` is resolved, and the server's directory when none is given. */
  baseDir?: string;
  /** Where `${TOOL_SECRET_*}` references are read. */
  env: Record<string, string | undefined>;
}

/**
 * The server an MCP definition runs, or undefined when it names one at a `url`; throws
 * ToolDefinitionError (prefixed by `at`) for a definition that gives both or neither, mixes
 * their fields, or runs a command where none may be run.
 */
export function mcpCommandOf(
  def: ToolDefinitionInput,
  at: string,
  options: CommandOptions,
): { stdio: McpCommand; secrets: Record<string, string> } | undefined {
  if ((def.url === undefined) === (def.command === undefined))
    throw new ToolDefinitionError(
      `${at}: give exactly one of 'url' (a server at an address) and 'command' (a server the engine runs)`,
    );
  const [given, other] = def.url === undefined ? ['command', URL_ONLY] : ['url', COMMAND_ONLY];
  for (const field of other)
    if (def[field] !== undefined)
      throw new ToolDefinitionError(
        `${at}: field '${field}' is not used with '${given}' (it goes with '${given === 'url' ? 'command' : 'url'}')`,
      );
  if (def.command === undefined) return undefined;
  const { commands } = options;
  if (commands !== true && !(typeof commands === 'object' && commands.has(commandKey(def))))
    throw new ToolDefinitionError(
      `${at}: field 'command': an MCP server run as a command is declared in the tools file (LLM_TOOLS_FILE); over the API a set may keep one the file declares, as the file writes it, but not run another program`,
    );
  const fields: Record<string, string> = { command: def.command };
  (def.args ?? []).forEach((arg, i) => (fields[`args[${i}]`] = arg));
  for (const [name, value] of Object.entries(def.env ?? {})) fields[`env.${name}`] = value;
  for (const [field, value] of Object.entries(fields))
    if (value.includes('${session.'))
      throw new ToolDefinitionError(
        `${at}: field '${field}' has a session variable: one server process serves every session`,
      );
  let secrets: Record<string, string>;
  try {
    secrets = resolveSecrets(fields, options.env);
  } catch (error) {
    throw new ToolDefinitionError(`${at}: ${(error as Error).message}`);
  }
  const baseDir = options.baseDir ?? process.cwd();
  const cwd = def.cwd === undefined ? baseDir : resolve(baseDir, def.cwd);
  const args = [...(def.args ?? [])];
  return {
    stdio: {
      command: def.command,
      args,
      // The egress proxy, as the server's own HTTP client reads it, unless its env says otherwise.
      env: { ...egressEnvironment(), ...(def.env ?? {}) },
      cwd,
      ...scriptFiles([def.command, ...args], cwd),
    },
    secrets,
  };
}

/**
 * The files among a command's program and arguments (resolved from `cwd`; none with a secret in
 * it), and what they are now (`fileState`, as the tools file is watched).
 */
export function scriptFiles(words: string[], cwd: string): { files: string[]; revision: string } {
  const files: string[] = [];
  const seen: string[] = [];
  for (const word of words) {
    if (word === '' || word.includes('${')) continue;
    const path = resolve(cwd, word);
    try {
      const s = statSync(path);
      if (!s.isFile()) continue;
      files.push(path);
      seen.push(fileState(s));
    } catch {
      // Not a file (a flag, a module name, a program found on the PATH).
    }
  }
  return { files, revision: seen.join('|') };
}

/** One command as a definition writes it (program, arguments, environment, directory). */
export function commandKey(def: ToolDefinitionInput): string {
  return JSON.stringify([def.command, def.args ?? [], def.env ?? {}, def.cwd ?? null]);
}

/** The command with its `${TOOL_SECRET_*}` references filled in from `secrets`. */
export function filledCommand(stdio: McpCommand, secrets: Record<string, string>): McpCommand {
  const fill = (text: string) =>
    text.replace(SECRET_REFERENCE, (_, name: string) => secrets[name]!);
  return {
    ...stdio,
    command: fill(stdio.command),
    args: stdio.args.map(fill),
    env: Object.fromEntries(Object.entries(stdio.env).map(([k, v]) => [k, fill(v)])),
  };
}

/** How a command is shown in logs and messages: its program and arguments, secrets as written. */
export function commandLine(stdio: McpCommand): string {
  return [stdio.command, ...stdio.args]
    .map((a) => (/[\s"']/.test(a) ? JSON.stringify(a) : a))
    .join(' ');
}
