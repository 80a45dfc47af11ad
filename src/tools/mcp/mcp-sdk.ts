/**
 * The MCP SDK's client side, loaded with the first connection to an MCP server: an engine
 * without MCP tools does not carry it (most of the 12 MB of heap a process without MCP tools,
 * OpenAPI tools or Redis saves, with zod and the SDK's schemas).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import type {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  CallToolResultSchema,
  ListToolsResultSchema,
  ResultSchema,
  ToolSchema,
  CreateMessageRequestSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';

import type { ElicitAnswer, ElicitParams } from './mcp-elicitation.js';
import type { SamplingAnswer, SamplingParams, SamplingResult } from './mcp-sampling.js';
import { serverLogLine, type EngineLogLevel } from './mcp-server-log.js';

export interface McpSdk {
  Client: typeof Client;
  SSEClientTransport: typeof SSEClientTransport;
  StreamableHTTPClientTransport: typeof StreamableHTTPClientTransport;
  StreamableHTTPError: typeof StreamableHTTPError;
  McpError: typeof McpError;
  /** For tools called as tasks (mcp-task.ts). */
  CreateTaskResultSchema: typeof CreateTaskResultSchema;
  CallToolResultSchema: typeof CallToolResultSchema;
  /** A `tools/list` answer read loosely, each tool checked alone (McpClients.list). */
  ResultSchema: typeof ResultSchema;
  ListToolsResultSchema: typeof ListToolsResultSchema;
  ToolSchema: typeof ToolSchema;
  /** A server's log messages (`notifications/message`). */
  LoggingMessageNotificationSchema: typeof LoggingMessageNotificationSchema;
  /** A server asking its client's user something during a call (`elicitation/create`). */
  ElicitRequestSchema: typeof ElicitRequestSchema;
  /** A server asking its client's model for a completion (`sampling/createMessage`). */
  CreateMessageRequestSchema: typeof CreateMessageRequestSchema;
}

/** JSON-RPC code of a request failed by its connection closing (the SDK's ErrorCode.ConnectionClosed). */
export const CONNECTION_CLOSED = -32000;
/** JSON-RPC code of a request the client gave up waiting for (the SDK's ErrorCode.RequestTimeout). */
export const REQUEST_TIMEOUT = -32001;

let loaded: McpSdk | undefined;
let loading: Promise<McpSdk> | undefined;

/** The SDK, loaded once. */
export function mcpSdk(): Promise<McpSdk> {
  loading ??= load().then((sdk) => (loaded = sdk));
  return loading;
}

// One module after the other: they share dependencies, and Jest's ESM loader fails to link a
// module that two concurrent imports reach ("request for … is not in cache").
async function load(): Promise<McpSdk> {
  const types = await import('@modelcontextprotocol/sdk/types.js');
  const client = await import('@modelcontextprotocol/sdk/client/index.js');
  const http = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const sse = await import('@modelcontextprotocol/sdk/client/sse.js');
  return {
    Client: client.Client,
    SSEClientTransport: sse.SSEClientTransport,
    StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
    StreamableHTTPError: http.StreamableHTTPError,
    McpError: types.McpError,
    CreateTaskResultSchema: types.CreateTaskResultSchema,
    CallToolResultSchema: types.CallToolResultSchema,
    ResultSchema: types.ResultSchema,
    ListToolsResultSchema: types.ListToolsResultSchema,
    ToolSchema: types.ToolSchema,
    LoggingMessageNotificationSchema: types.LoggingMessageNotificationSchema,
    ElicitRequestSchema: types.ElicitRequestSchema,
    CreateMessageRequestSchema: types.CreateMessageRequestSchema,
  };
}

/** The SDK if a connection has loaded it (its errors exist only then). */
export function loadedMcpSdk(): McpSdk | undefined {
  return loaded;
}

/** An HTTP status the Streamable HTTP transport failed with. */
export function isStreamableHttpError(error: unknown): error is StreamableHTTPError {
  return loaded !== undefined && error instanceof loaded.StreamableHTTPError;
}

/** A JSON-RPC error of the SDK (one the server answered, or the client's own). */
export function isMcpError(error: unknown): error is McpError {
  return loaded !== undefined && error instanceof loaded.McpError;
}

/**
 * A client of the engine's (`name`), telling `toolsChanged` when its server's tools change and
 * `log` what the server logs for it, answering with `elicit` what the server asks its user
 * (form mode only: the engine opens no URL for a user) and, when given `sample`, with the
 * engine's model what the server asks it (declared then only).
 */
export function newClient(
  sdk: McpSdk,
  name: string,
  on: {
    toolsChanged: () => void;
    log: (line: string, level: EngineLogLevel) => void;
    /** `signal`: aborted when the server gives up its question (its request cancelled). */
    elicit: (params: ElicitParams, signal: AbortSignal) => Promise<ElicitAnswer>;
    sample?: (params: SamplingParams, signal: AbortSignal) => Promise<SamplingAnswer>;
  },
): Client {
  // The SDK follows a server's list_changed notifications only if it declares them; several
  // within its debounce (300 ms) are one.
  const client = new sdk.Client(
    { name, version: '1' },
    {
      // A field a form does not require, left out by its user, gets its default (the SDK fills it in).
      capabilities: {
        elicitation: { form: { applyDefaults: true } },
        ...(on.sample && { sampling: {} }),
      },
      listChanged: { tools: { autoRefresh: false, onChanged: on.toolsChanged } },
    },
  );
  client.setRequestHandler(sdk.ElicitRequestSchema, ({ params }, extra) =>
    on.elicit(params, extra.signal),
  );
  const { sample } = on;
  if (sample)
    client.setRequestHandler(
      sdk.CreateMessageRequestSchema,
      async ({ params }, { signal }): Promise<SamplingResult> => {
        const answer = await sample(params, signal);
        if ('result' in answer) return answer.result;
        // JSON-RPC's "invalid params" (-32602) and "internal error" (-32603), the message as it is
        // (an McpError's would begin "MCP error -32602:", and the server's SDK adds its own).
        if ('refused' in answer) throw Object.assign(new Error(answer.refused), { code: -32602 });
        throw Object.assign(new Error(answer.failed), { code: -32603 });
      },
    );
  client.setNotificationHandler(sdk.LoggingMessageNotificationSchema, ({ params }) => {
    const { level, line } = serverLogLine(params);
    on.log(line, level);
  });
  return client;
}

/**
 * `legacy` (a new client) connected over the older HTTP+SSE transport (MCP 2024-11-05). Its event
 * stream is the whole session: once it fails (the server went away, an event over the size limit),
 * its calls get no answer; closing fails them now, `failed` is told, and the pool opens anew.
 */
export async function connectLegacy(
  sdk: McpSdk,
  legacy: Client,
  to: {
    url: URL;
    options: ConstructorParameters<McpSdk['SSEClientTransport']>[1];
    timeoutMs: number;
  },
  failed: (reason: string) => void,
): Promise<Client> {
  const transport = new sdk.SSEClientTransport(to.url, to.options);
  transport.onerror = (error) => {
    failed(error.message.replace(/^SSE error: /, ''));
    void legacy.close();
  };
  await legacy.connect(transport, { timeout: to.timeoutMs });
  return legacy;
}
