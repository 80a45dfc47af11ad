/** MCP servers the engine runs: a session over the process's standard input and output (stdio). */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { PassThrough } from 'node:stream';
import type { McpCommand } from '../tool-definition.js';

/** The longest line of a server's standard error logged (the rest is cut). */
const LINE_MAX = 1000;

export interface StdioHooks {
  /** A line the server wrote to its standard error (its log), or a fault of what it wrote. */
  log: (line: string) => void;
  /** The process ended: why, for the calls it leaves unanswered. */
  ended: (reason: string) => void;
}

const cut = (line: string) => (line.length > LINE_MAX ? `${line.slice(0, LINE_MAX)}…` : line);

/**
 * The lines of a text stream, each cut past LINE_MAX + 1 characters as it comes (so that `cut`
 * still marks it): a line that never ends (a progress bar, binary noise) is not held whole, as
 * readline would. Pure: `push` each chunk.
 */
export function lineReader(onLine: (line: string) => void): (text: string) => void {
  let line = '';
  return (text) => {
    const parts = text.split(/\r\n|\r|\n/);
    parts.forEach((part, i) => {
      line = (line + part).slice(0, LINE_MAX + 1);
      if (i === parts.length - 1) return;
      onLine(line);
      line = '';
    });
  };
}

/**
 * Starts the server `stdio` describes and opens a session with it through `client`. Its
 * environment is `stdio.env` over the few variables a program needs (PATH, HOME, …): none of the
 * engine's own, but the egress proxy's (see mcp-command.ts). A line of its output over `maxBytes` ends it. A server that does not answer the
 * session's opening within `timeoutMs` is stopped.
 */
export async function connectCommand(
  client: Client,
  stdio: McpCommand,
  limits: { maxBytes: number; timeoutMs: number },
  hooks: StdioHooks,
): Promise<void> {
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const transport = new StdioClientTransport({
    ...stdio,
    stderr: 'pipe',
    maxBufferSize: limits.maxBytes,
  });
  let said = '';
  let why: string | undefined;
  const stderr = transport.stderr as PassThrough;
  stderr.setEncoding('utf8');
  stderr.on(
    'data',
    lineReader((line) => {
      if (line.trim() === '') return;
      said = cut(line.trim());
      hooks.log(said);
    }),
  );
  transport.onerror = (error: Error & { code?: unknown }) => {
    if (/^ReadBuffer exceeded/.test(error.message))
      why = `an answer from the MCP server is larger than LLM_TOOL_MAX_RESPONSE_BYTES (${limits.maxBytes} bytes)`;
    // A failed start (the program missing) is the connection's error; a line that is not
    // JSON-RPC is the server's fault, told in the log.
    else if (typeof error.code !== 'string') hooks.log(`(engine) ${cut(error.message)}`);
  };
  transport.onclose = () =>
    hooks.ended(why ?? `its process ended${said ? `; it last said: ${said}` : ''}`);
  // A failed opening closes the client, and with it the process (see the test).
  await client.connect(transport, { timeout: limits.timeoutMs });
}
