/** Where an MCP tool's calls go, and how one server is told from another. Pure: no Nest import. */
import type { SpanRef } from '../../common/trace-context.js';
import { buildHttpRequest } from '../http-request-builder.js';
import { oauth2Identity, type OAuth2Config } from '../oauth2.js';
import type { McpCommand, Tool } from '../tool-definition.js';
import { commandLine, filledCommand } from './mcp-command.js';
import type { Asker } from './mcp-elicitation.js';

/**
 * Where an MCP tool's calls go: its server's URL and the headers sent with each request, or the
 * server the engine runs (`stdio`, its secrets filled in; `url` is then empty).
 */
export interface McpTarget {
  url: string;
  headers: Record<string, string>;
  /** Requests carry a bearer token of this client (`oauth2`). */
  oauth2?: OAuth2Config;
  stdio?: McpCommand;
  /** How logs name a server run as a command: its command line as written (no secret in it). */
  label?: string;
  /**
   * The server may ask the engine's model for completions (`"sampling": true`), each at most
   * `maxTokens` long. Declared at the connection's start: a connection of its own.
   */
  sampling?: { maxTokens: number };
}

/** The same key for the same server and headers: one connection each. */
export function targetKey(target: McpTarget): string {
  const sampling = target.sampling?.maxTokens ?? null;
  if (target.stdio) return JSON.stringify(['stdio', target.stdio, sampling]);
  const client = target.oauth2 ? oauth2Identity(target.oauth2) : null;
  return JSON.stringify([target.url, target.headers, client, sampling]);
}

/** A tool as the server lists it (`tools/list`). */
export interface McpListedTool {
  name: string;
  /** MCP 2025-06-18: a name for people (`annotations.title` before it). */
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: {
    title?: string;
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    openWorldHint?: boolean;
  };
  /** MCP 2025-11-25: `"required"`, the tool is called only as a task. */
  execution?: { taskSupport?: string };
  /**
   * Why MCP's schema refuses the tool as listed (`description: Invalid input: expected string,
   * received null`): it is not made, and a definition naming it is told why.
   */
  flaw?: string;
}

export interface McpLimits {
  timeoutMs: number;
  signal?: AbortSignal;
  /** The turn's trace id: the call carries a W3C `traceparent` of it (`_meta` and HTTP header). */
  traceId?: string;
  /** The exported span of the call: the `traceparent`'s parent. */
  parent?: SpanRef;
  /**
   * The session whose own connection the call takes (a `per_session` tool): opened at its first
   * call, kept until `endSession`, never let go for other servers' sake.
   */
  session?: string;
  /** With `session`: at most this many sessions hold a connection of their own to the server. */
  maxSessions?: number;
  /** The server's progress notifications for a call (asked for with a `progressToken`). */
  onProgress?: (update: { progress?: number; total?: number; message?: string }) => void;
  /** A call's session and its user, whom the server may ask something (MCP elicitation). */
  asker?: Asker;
}

/** The server's URL and headers for one call: secrets and the session's variables filled in. */
export function targetOf(
  tool: Tool,
  variables: Record<string, string> = {},
): McpTarget | { error: string } {
  const sampling = tool.mcpSampling && { sampling: tool.mcpSampling };
  if (tool.stdio)
    return {
      url: '',
      headers: {},
      stdio: filledCommand(tool.stdio, tool.secrets),
      label: commandLine(tool.stdio),
      ...sampling,
    };
  const built = buildHttpRequest(tool, {}, variables);
  if ('error' in built) return built;
  const headers = Object.fromEntries(
    Object.entries(built.headers).filter(([name]) => name.toLowerCase() !== 'content-type'),
  );
  return { url: built.url, headers, ...(tool.oauth2 && { oauth2: tool.oauth2 }), ...sampling };
}

/** How the log names a server: its command line, or its URL without its query (no key in it). */
export function serverLabel(target: McpTarget): string {
  if (target.label) return target.label;
  const url = new URL(target.url);
  return `${url.origin}${url.pathname}`;
}
