/** Connections to MCP servers (Streamable HTTP), shared by the calls that reach the same one. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LRUCache } from 'lru-cache';
import { AsyncLocalStorage } from 'node:async_hooks';
import { traceparent } from '../../common/trace-context.js';
import type { McpCallResult } from './mcp-result.js';

/** Where an MCP tool's calls go: its server's URL and the headers sent with each request. */
export interface McpTarget {
  url: string;
  headers: Record<string, string>;
}

/** A tool as the server lists it (`tools/list`). */
export interface McpListedTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean };
}

export interface McpLimits {
  timeoutMs: number;
  signal?: AbortSignal;
  /** The turn's trace id: each HTTP request of the call carries a W3C `traceparent` of it. */
  traceId?: string;
}

/** The trace id of the call whose requests are being sent (connections are shared by calls). */
const traceIds = new AsyncLocalStorage<string | undefined>();

/** fetch, with a `traceparent` for the current call's trace unless the tool's headers set one. */
function tracedFetch(url: string | URL, init?: RequestInit): Promise<Response> {
  const traceId = traceIds.getStore();
  if (traceId === undefined) return fetch(url, init);
  const headers = new Headers(init?.headers);
  if (!headers.has('traceparent')) headers.set('traceparent', traceparent(traceId));
  return fetch(url, { ...init, headers });
}

/** Connections kept open at most (different servers, or different headers such as a user's token). */
export const MAX_MCP_CONNECTIONS = 100;
const MAX_LISTED_TOOLS = 10_000;

/**
 * Whether a request failed before the server took it, so sending it again on a new connection
 * can do nothing twice: the server forgot the session (HTTP 404 to its id, after a restart) or
 * refused the connection.
 */
function notTaken(error: unknown): boolean {
  if (error instanceof StreamableHTTPError) return error.code === 404;
  const cause = (error as { cause?: { code?: string } }).cause;
  return cause?.code === 'ECONNREFUSED';
}

/**
 * One connected client (one MCP session) per server and headers, opened at the first call and
 * reused; the least recently used is closed past MAX_MCP_CONNECTIONS. A connection that fails is
 * dropped, and the next call opens another.
 */
export class McpClients {
  private readonly clients = new LRUCache<string, Promise<Client>>({
    max: MAX_MCP_CONNECTIONS,
    dispose: (client) => void client.then((c) => c.close()).catch(() => undefined),
  });

  constructor(private readonly clientName: string) {}

  /** Every tool the server lists, following its pages. */
  list(target: McpTarget, limits: McpLimits): Promise<McpListedTool[]> {
    return this.withClient(target, limits, async (client) => {
      const tools: McpListedTool[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor === undefined ? undefined : { cursor }, {
          timeout: limits.timeoutMs,
          signal: limits.signal,
        });
        tools.push(...(page.tools as McpListedTool[]));
        cursor = page.nextCursor;
      } while (cursor !== undefined && tools.length < MAX_LISTED_TOOLS);
      return tools;
    });
  }

  call(
    target: McpTarget,
    name: string,
    args: Record<string, unknown>,
    limits: McpLimits,
  ): Promise<McpCallResult> {
    return traceIds.run(limits.traceId, () =>
      this.withClient(
        target,
        limits,
        async (client) =>
          (await client.callTool({ name, arguments: args }, undefined, {
            timeout: limits.timeoutMs,
            signal: limits.signal,
          })) as McpCallResult,
      ),
    );
  }

  /** Closes every connection (the server's sessions end). */
  async close(): Promise<void> {
    const open = [...this.clients.values()];
    this.clients.clear();
    await Promise.allSettled(open.map((c) => c.then((client) => client.close())));
  }

  private async withClient<T>(
    target: McpTarget,
    limits: McpLimits,
    use: (client: Client) => Promise<T>,
  ): Promise<T> {
    const key = JSON.stringify([target.url, target.headers]);
    for (let attempt = 1; ; attempt++) {
      const reused = this.clients.has(key);
      const connecting = this.connection(key, target, limits.timeoutMs);
      try {
        return await use(await connecting);
      } catch (error) {
        // A client whose connection failed is dropped (closing it); errors the server answered
        // (an MCP error, a tool's own failure) leave it in use.
        if (!isServerAnswer(error) && this.clients.get(key) === connecting)
          this.clients.delete(key);
        if (attempt > 1 || !reused || limits.signal?.aborted || !notTaken(error)) throw error;
      }
    }
  }

  private connection(key: string, target: McpTarget, timeoutMs: number): Promise<Client> {
    const open = this.clients.get(key);
    if (open) return open;
    const client = new Client({ name: this.clientName, version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(target.url), {
      requestInit: { headers: target.headers },
      fetch: tracedFetch,
    });
    const connecting = client.connect(transport, { timeout: timeoutMs }).then(() => client);
    this.clients.set(key, connecting);
    connecting.catch(() => {
      if (this.clients.get(key) === connecting) this.clients.delete(key);
    });
    return connecting;
  }
}

/** An error the server sent as a JSON-RPC answer: the session is fine. */
function isServerAnswer(error: unknown): boolean {
  return (
    typeof (error as { code?: unknown }).code === 'number' &&
    !(error instanceof StreamableHTTPError)
  );
}
