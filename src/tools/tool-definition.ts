/** Tool definitions validated, with their defaults; the snapshots turns use. Plain types, no Nest. */
import type { Phrases } from '../common/phrases.js';
import type { ClientCertificate } from './client-certificate.js';
import type { RateLimit } from './rate-table.js';
import type { OAuth2Config } from './oauth2.js';
import type { ResponseQuery } from './response-query.js';
import type { SpecVersion } from './openapi/spec-source.js';
import type { Agent } from './handoff-tool.js';
import type {
  JsonSchema,
  Modality,
  QueryStyle,
  PlaceholderStyle,
  ToolDefinitionInput,
} from './definition-input.js';

export type { JsonSchema, Modality, QueryStyle, PlaceholderStyle, ToolDefinitionInput };

export type ToolSource = 'file' | 'request' | 'none';

/**
 * An MCP server the engine runs and speaks to over its standard input and output: `${TOOL_SECRET_*}`
 * references in `args` and `env` as written (filled in for each connection), `cwd` absolute.
 */
export interface McpCommand {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /**
   * The files its program and arguments name (a script, from `cwd`), watched with the tools
   * file, and what they were when the tools were loaded: a server whose script was edited since
   * is another server, started anew.
   */
  files?: string[];
  revision?: string;
}

/** A validated definition with its defaults applied. `raw` is the definition as given. */
export interface Tool {
  kind:
    | 'http'
    | 'python'
    | 'callback'
    | 'mcp'
    | 'end_session'
    | 'transfer_call'
    | 'handoff'
    | 'tool_search';
  /** `transfer_call` tools: where calls go. */
  transfer?: { to?: string; destinations?: Record<string, string> };
  /** `handoff` tools: who takes the conversation. */
  handoff?: Agent;
  name: string;
  description: string;
  parameters: JsonSchema;
  /** HTTP and MCP tools (an MCP tool's method is POST). */
  url: string;
  method: string;
  headers: Record<string, string>;
  /** HTTP tools only: the values of the `${TOOL_SECRET_*}` its url and headers refer to. */
  secrets: Record<string, string>;
  /** Code tools only: the Python source, and the function to call. */
  code: string;
  /** MCP tools: the tool's name on its server (`tool`, else `name`). */
  remoteName?: string;
  /** MCP tools the server lists as run only as tasks (`execution.taskSupport: "required"`). */
  mcpTask?: true;
  /** MCP tools whose server the engine runs (`command`; `url` is then empty). */
  stdio?: McpCommand;
  /** MCP tools (`per_session`): each session calls the server on a connection of its own. */
  mcpPerSession?: true;
  /** MCP tools (`max_sessions`): at most this many sessions hold a connection of their own. */
  mcpMaxSessions?: number;
  /** MCP tools (`sampling`): the server may ask the engine's model, for this many tokens at most. */
  mcpSampling?: { maxTokens: number };
  /**
   * An entry for tools of an MCP server (`tools`), while its server cannot be listed: it becomes
   * one tool per tool listed once it can (McpToolExecutor.complete). Never offered.
   */
  mcpGroup?: { tools: '*' | readonly string[]; prefix: string };
  /**
   * The entry for all of a server's tools (`"tools": "*"`) that made this one: a tool the server
   * lists later joins it (see groupsOf).
   */
  mcpListedBy?: ToolDefinitionInput;
  /**
   * An entry for several operations of an OpenAPI document (`operations`), while its document
   * cannot be read: it becomes one tool per operation once it can (ToolLoader.completePending).
   * Never offered.
   */
  openapiGroup?: { prefix: string };
  /**
   * An MCP tool whose server, or an OpenAPI tool whose document, could not be reached when the
   * tools file was read: why. Not offered to the model until a later try makes it ready.
   */
  pending?: string;
  /** OpenAPI tools whose document is at a URL: the version of it the tool was made from. */
  specVersion?: SpecVersion;
  timeoutSecs?: number;
  /** `result_max_chars`: the longest result the model reads from this tool. */
  resultMaxChars?: number;
  /** `wait_phrase` by lower-case language code (`*` for any language). */
  waitPhrase?: Phrases;
  /** HTTP tools: further attempts after a transient failure, for any method (LLM_TOOL_RETRIES otherwise, safe methods only). */
  retries?: number;
  /** HTTP tools: `response_query`, compiled. */
  responseQuery?: ResponseQuery;
  /** HTTP tools: `error_query`, compiled. */
  errorQuery?: ResponseQuery;
  /** HTTP tools: `safe` as given (see `isSafe`). */
  safe?: boolean;
  /** HTTP tools: `cache_secs`. */
  cacheSecs?: number;
  /** HTTP tools: `idempotency_header`. */
  idempotencyHeader?: string;
  /** HTTP tools: `query_styles`. */
  queryStyles?: Record<string, QueryStyle>;
  /** HTTP tools: `query_arguments`. */
  queryArguments?: string[];
  /** HTTP tools: `header_arguments`. */
  headerArguments?: string[];
  /** HTTP tools: `placeholder_styles`. */
  placeholderStyles?: Record<string, PlaceholderStyle>;
  /** HTTP tools: `body`, the template of every request's body. */
  body?: unknown;
  /** HTTP tools: `client_certificate`, its files read. */
  clientCertificate?: ClientCertificate;
  /** HTTP tools: `max_concurrency`. */
  maxConcurrency?: number;
  /** HTTP and MCP tools: `rate_limit`, its window in ms. */
  rateLimit?: RateLimit;
  /** HTTP and MCP tools: `oauth2`, its secrets filled in. */
  oauth2?: OAuth2Config;
  modalities?: Modality[];
  /** Each call waits for the user's approval. */
  confirm?: boolean;
  /** The question put to the user for each call, with `{param}` placeholders. */
  confirmPrompt?: string;
  /** Calls run in the background: the model hears the result in a later turn. */
  background?: boolean;
  /** Called with no arguments before the model's first request of a conversation (`at_start`). */
  atStart?: boolean;
  /** Arguments whose values the user must have given (`user_given`): the model may not supply them. */
  userGiven?: string[];
  /** `max_calls_per_session`. */
  maxCallsPerSession?: number;
  /** `repeatable`. */
  repeatable?: boolean;
  /** `untrusted`, or (MCP tools) its server's `openWorldHint`. */
  untrusted?: boolean;
  /** `deferred`: offered once a `tool_search` call has found it. */
  deferred?: boolean;
  /** `keywords` (and an OpenAPI operation's tags): what a search finds it by, never offered. */
  keywords?: readonly string[];
  /** `tool_search` tools: `max_results`, and `prefetch`. */
  maxResults?: number;
  prefetch?: number;
  raw: ToolDefinitionInput;
}

/** One immutable view of the active definitions; a turn keeps the one it started with. */
export interface ToolSnapshot {
  source: ToolSource;
  /** Every definition, callbacks included, in file order. */
  definitions: readonly Tool[];
  /** What the model may call: HTTP, MCP and Python tools (not those still pending). */
  tools: readonly Tool[];
  byName: ReadonlyMap<string, Tool>;
  /** `before_model_callback` hooks (type `callback`). */
  callbacks: readonly Tool[];
  /** What loading the definitions warned of (an operation left out, …), as logged then. */
  warnings: readonly string[];
}

export const DEFAULT_PARAMETERS: JsonSchema = { type: 'object', properties: {} };

/** Methods that change nothing on the server (RFC 9110 "safe"): retried, and run early, by default. */
export const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);

/**
 * Whether a tool's requests change nothing on its backend, so that sending one early, or twice,
 * is harmless: as its `safe` field says, else as its method does.
 */
export function isSafe(tool: Pick<Tool, 'safe' | 'method'>): boolean {
  return tool.safe ?? SAFE_METHODS.has(tool.method);
}

/** An HTTP, OpenAPI or MCP tool whose calls act on its service (not `isSafe`): a booking, a payment. */
export function actsOnService(tool: Tool | undefined): tool is Tool {
  return (tool?.kind === 'http' || tool?.kind === 'mcp') && !isSafe(tool);
}

export function snapshotOf(
  source: ToolSource,
  definitions: readonly Tool[],
  warnings: readonly string[] = [],
): ToolSnapshot {
  const tools = definitions.filter((t) => t.kind !== 'callback' && t.pending === undefined);
  return {
    source,
    definitions,
    tools,
    byName: new Map(tools.map((t) => [t.name, t])),
    callbacks: definitions.filter((t) => t.kind === 'callback'),
    warnings,
  };
}

/** The same snapshot with some tools hidden from the model (and so unknown if called). */
export function withoutTools(snapshot: ToolSnapshot, hidden: ReadonlySet<string>): ToolSnapshot {
  if (hidden.size === 0) return snapshot;
  return snapshotOf(
    snapshot.source,
    snapshot.definitions.filter((t) => t.kind === 'callback' || !hidden.has(t.name)),
    snapshot.warnings,
  );
}
