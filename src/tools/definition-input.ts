/** Tool definitions as given in the tools file or `POST /api/tools`, before validation. Plain types, no Nest. */
import type { ClientCertificateInput } from './client-certificate.js';
import type { OAuth2Input } from './oauth2.js';

export type JsonSchema = Record<string, unknown>;

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
 * `mcp`; `openapi`, made an HTTP tool; `end_session`, `transfer_call`, `handoff` and
 * `tool_search`, the engine's own).
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
    | 'handoff'
    | 'tool_search';
  /** `handoff` tools: the assistant's name (default: the tool's), and its instructions. */
  agent?: string;
  instructions?: string;
  /** `handoff` tools: the voice the assistant speaks with, the language the session goes on in. */
  voice?: string;
  language?: string;
  /** A handoff's assistant's own phrases (`{"wait": …}`), as `session.update`'s `phrases`. */
  phrases?: Record<string, unknown>;
  /** `tool_search` tools: how many tools a search names at most. */
  max_results?: number;
  /** `tool_search` tools: how many tools matching the user's latest words each request offers. */
  prefetch?: number;
  /** Left out of the model's requests until a `tool_search` call finds it (tool-search.ts). */
  deferred?: boolean;
  /** Deferred tools: words a search finds it by besides its name, description and parameters. */
  keywords?: string[];
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
  /** MCP with `tools`, OpenAPI with `operations`: put before each tool's name. */
  prefix?: string;
  /** MCP with `"tools": "*"`: only the tools its server marks read-only (`readOnlyHint`). */
  read_only?: boolean;
  /** MCP with `"tools": "*"`, OpenAPI with `"operations": "*"`: those left out, by name. */
  exclude?: string[];
  /** OpenAPI tools: the document (a path relative to the tools file) and the operation in it. */
  spec?: string;
  operation?: string;
  /** OpenAPI: the entry stands for these operations of its document (`*`: all), not one. */
  operations?: '*' | string[];
  /** OpenAPI with `"operations": "*"`: only the operations tagged so. */
  tags?: string[];
  /** OpenAPI with `"operations": "*"`: only the operations of these methods (`["GET"]`: reads). */
  methods?: string[];
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
  wait_phrase?: string | string[] | Record<string, string | string[]>;
  /** HTTP tools: further attempts after a transient failure, whatever the method (its backend takes a request twice safely). */
  retries?: number;
  /** HTTP tools: a JMESPath expression picking what the model reads of a JSON response. */
  response_query?: string;
  /** HTTP tools: a JMESPath expression finding the error in a 2xx JSON response. */
  error_query?: string;
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
  /** Called by the engine, with no arguments, before the model's first request (start-calls.ts). */
  at_start?: boolean;
  /** Arguments whose values the user must have given in the conversation (user-given.ts). */
  user_given?: string[];
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
