/** Tool definitions as written in the tools file or `POST /api/tools`. Plain types, no Nest. */
import type { ClientCertificate, ClientCertificateInput } from './client-certificate.js';
import type { RateLimit } from './rate-table.js';
import type { OAuth2Config, OAuth2Input } from './oauth2.js';
import type { ResponseQuery } from './response-query.js';
import type { SpecVersion } from './openapi/spec-source.js';
import type { Agent } from './handoff-tool.js';

export type JsonSchema = Record<string, unknown>;

export type ToolSource = 'file' | 'request' | 'none';

export type Modality = 'voice' | 'text';

/**
 * How an array or object argument is written in the query string (OpenAPI 3's `style` and
 * `explode` of a query parameter); without one, it is sent as JSON text.
 */
export interface QueryStyle {
  style: 'form' | 'spaceDelimited' | 'pipeDelimited' | 'deepObject';
  /** Default: true for `form`, false otherwise (as in OpenAPI). */
  explode?: boolean;
}

/** How an array or object argument is written in a `{placeholder}` (OpenAPI 3's path styles). */
export interface PlaceholderStyle {
  style: 'simple' | 'label' | 'matrix';
  /** Default: false (as in OpenAPI). */
  explode?: boolean;
}

/**
 * One entry of the tools file, as given (HTTP tools by default; `python` and `callback` code;
 * `mcp`; `openapi`, made an HTTP tool; `end_session` and `transfer_call`, the engine's own).
 */
export interface ToolDefinitionInput {
  type?:
    | 'http'
    | 'python'
    | 'callback'
    | 'mcp'
    | 'openapi'
    | 'end_session'
    | 'transfer_call'
    | 'handoff';
  /** `handoff` tools: the assistant's name (default: the tool's), and its instructions. */
  agent?: string;
  instructions?: string;
  /** `handoff` tools: the voice the assistant speaks with, the language the session goes on in. */
  voice?: string;
  language?: string;
  /** `transfer_call` tools: where every call goes. */
  to?: string;
  /** `transfer_call` tools: where a call may go, by the name the model chooses. */
  destinations?: Record<string, string>;
  name?: string;
  description?: string;
  parameters?: JsonSchema;
  url?: string;
  method?: string;
  headers?: Record<string, string>;
  code?: string;
  file?: string;
  /** MCP tools: the tool's name on its server, when it differs from `name`. */
  tool?: string;
  /** MCP tools whose server the engine runs (stdio): the program, its arguments, environment and directory. */
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  /**
   * MCP tools: each session of the engine has a connection (an MCP session; a process, for a
   * command) of its own with the server, closed when the session ends.
   */
  per_session?: boolean;
  /** MCP tools with `per_session`: at most this many sessions hold a connection of their own at once. */
  max_sessions?: number;
  /** MCP tools: the server may ask the engine's model for completions (`sampling/createMessage`). */
  sampling?: boolean;
  /** MCP tools with `sampling`: the longest completion a server gets, in tokens. */
  sampling_max_tokens?: number;
  /**
   * MCP: the entry stands for these tools of its server (`*`: all it lists), not one. `handoff`:
   * the tools the assistant may use (all, when not given).
   */
  tools?: '*' | string[];
  /** MCP with `tools`: put before each tool's name. */
  prefix?: string;
  /** OpenAPI tools: the document (a path relative to the tools file) and the operation in it. */
  spec?: string;
  operation?: string;
  /** OpenAPI tools: the server, instead of the document's first. */
  base_url?: string;
  /**
   * OpenAPI tools: the key sent where the operation's security says (apiKey, or HTTP bearer), or
   * keys by scheme name.
   */
  api_key?: string | Record<string, string>;
  timeout_secs?: number;
  /** The longest result the model reads from this tool; LLM_TOOL_RESULT_MAX_CHARS otherwise. */
  result_max_chars?: number;
  /** Said in a voice turn while a call of this tool keeps the caller waiting (one phrase, or by language). */
  wait_phrase?: string | Record<string, string>;
  /** HTTP tools: further attempts after a transient failure, whatever the method (its backend takes a request twice safely). */
  retries?: number;
  /** HTTP tools: a JMESPath expression picking what the model reads of a JSON response. */
  response_query?: string;
  /** HTTP tools: whether a request changes nothing (default: by its method, GET/HEAD/OPTIONS/TRACE). */
  safe?: boolean;
  /** HTTP tools that change nothing: how long the result of a request answers the same request. */
  cache_secs?: number;
  /** HTTP tools: a header that carries a key unique to each call, the same on its retries. */
  idempotency_header?: string;
  /** HTTP tools: how an array or object argument is written in the query, by argument (OpenAPI's styles). */
  query_styles?: Record<string, QueryStyle>;
  /** HTTP tools: the arguments sent in the query whatever the verb, when the model gives them. */
  query_arguments?: string[];
  /** HTTP tools: the arguments sent only in the headers naming them (left out with them when not given). */
  header_arguments?: string[];
  /** HTTP tools: how array and object arguments are written in `{placeholders}`, by argument. */
  placeholder_styles?: Record<string, PlaceholderStyle>;
  /** HTTP tools: the request body, with `{argument}` places, constants and secrets (body-template.ts). */
  body?: unknown;
  /** HTTP tools: the certificate and key shown to a server that asks for one (mutual TLS). */
  client_certificate?: ClientCertificateInput;
  /** HTTP tools: at most this many calls run at once in the process; the others wait their turn. */
  max_concurrency?: number;
  /**
   * HTTP and MCP tools: at most `calls` calls begin in any `per_secs` seconds; of all the tools
   * naming the same `group` (with the same limit), together.
   */
  rate_limit?: { calls: number; per_secs: number; group?: string };
  /** HTTP and MCP tools: a bearer token from this OAuth 2.0 client-credentials client. */
  oauth2?: OAuth2Input;
  modalities?: Modality[];
  /**
   * The user must approve each call before it runs (a `tool_confirm` round trip on /ws);
   * `"destructive"` (MCP tools): unless its server marks the tool harmless (see fillListed).
   */
  confirm?: boolean | 'destructive';
  /** The question put to the user (and spoken in voice sessions), `{param}` filled in. */
  confirm_prompt?: string;
  /** The turn goes on without the result, which a later turn tells (background-calls.ts). */
  background?: boolean;
  /** At most this many calls of the tool run in one conversation. */
  max_calls_per_session?: number;
  /** A call made again in a later round of a turn runs again (LLM_TOOL_REPEAT_CALLS). */
  repeatable?: boolean;
  /**
   * Its results come from outside the engine's trust (web pages, mail, documents, another
   * party's API): once the model has read one, calls that act need the user's approval.
   */
  untrusted?: boolean;
}

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
  kind: 'http' | 'python' | 'callback' | 'mcp' | 'end_session' | 'transfer_call' | 'handoff';
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
  waitPhrase?: Record<string, string>;
  /** HTTP tools: further attempts after a transient failure, for any method (LLM_TOOL_RETRIES otherwise, safe methods only). */
  retries?: number;
  /** HTTP tools: `response_query`, compiled. */
  responseQuery?: ResponseQuery;
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
  /** `max_calls_per_session`. */
  maxCallsPerSession?: number;
  /** `repeatable`. */
  repeatable?: boolean;
  /** `untrusted`, or (MCP tools) its server's `openWorldHint`. */
  untrusted?: boolean;
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

export function snapshotOf(source: ToolSource, definitions: readonly Tool[]): ToolSnapshot {
  const tools = definitions.filter((t) => t.kind !== 'callback' && t.pending === undefined);
  return {
    source,
    definitions,
    tools,
    byName: new Map(tools.map((t) => [t.name, t])),
    callbacks: definitions.filter((t) => t.kind === 'callback'),
  };
}

/** The same snapshot with some tools hidden from the model (and so unknown if called). */
export function withoutTools(snapshot: ToolSnapshot, hidden: ReadonlySet<string>): ToolSnapshot {
  if (hidden.size === 0) return snapshot;
  return snapshotOf(
    snapshot.source,
    snapshot.definitions.filter((t) => t.kind === 'callback' || !hidden.has(t.name)),
  );
}
