/**
 * Connections to MCP servers (Streamable HTTP or HTTP+SSE, or a program the engine runs, over
 * stdio), shared by the calls that reach the same one.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { wholeCharacters } from '../../common/whole-characters.js';
import { LRUCache } from 'lru-cache';
import { closeConnection, drop, SessionPools, type Connection, type Pool } from './mcp-pool.js';
import { traceparent } from '../../common/trace-context.js';
import type { OAuth2Tokens } from '../oauth2.js';
import { sessionFetch } from './mcp-fetch.js';
import type { McpCallResult } from './mcp-result.js';
import { connectCommand } from './mcp-stdio.js';
import type { EngineLogLevel } from './mcp-server-log.js';
import { callAsTask } from './mcp-task.js';
import { listAll } from './mcp-listing-read.js';
import {
  httpStatusOf,
  isServerAnswer,
  legacyRefusal,
  lostBecause,
  notTaken,
  whileRunning,
} from './mcp-faults.js';
import {
  connectLegacy,
  isStreamableHttpError,
  loadedMcpSdk,
  mcpSdk,
  newClient,
  REQUEST_TIMEOUT,
  type McpSdk,
} from './mcp-sdk.js';
import { CallDeadline } from '../../common/call-deadline.js';
import { targetKey, type McpLimits, type McpListedTool, type McpTarget } from './mcp-target.js';
import { elicitor, type Asker } from './mcp-elicitation.js';
import { sampler, type SampleFn } from './mcp-sampling.js';

/** A connection being opened: to whom, within what time, and the calls that will be on it. */
interface Opening {
  target: McpTarget;
  timeoutMs: number;
  calls: ReadonlySet<Asker>;
}

export { targetKey, type McpLimits, type McpListedTool, type McpTarget } from './mcp-target.js';

/** Connections kept open at most (different servers, or different headers such as a user's token). */
export const MAX_MCP_CONNECTIONS = 100;

/**
 * One connected client (one MCP session) per server and headers, opened at the first call and
 * reused; the least recently used is let go past MAX_MCP_CONNECTIONS. A connection that fails is
 * dropped, and the next call opens another. A connection let go is closed once the calls using it
 * have ended, never under them.
 */
export class McpClients {
  private readonly connections = new LRUCache<string, Connection>({
    max: MAX_MCP_CONNECTIONS,
    dispose: drop,
  });
  /** Each session's own connections (`per_session` tools). */
  private readonly sessions = new SessionPools();
  /**
   * Servers (by key) whose session broke or could not be opened: the next one opened reads their
   * list again, as a restarted server (a new release) may list other tools and says nothing.
   */
  private readonly lost = new LRUCache<string, true>({ max: MAX_MCP_CONNECTIONS });

  constructor(
    private readonly clientName: string,
    /** The largest answer read from a server (LLM_TOOL_MAX_RESPONSE_BYTES). */
    private readonly maxResponseBytes: number,
    private readonly options: {
      /** Where tools with `oauth2` get their bearer tokens. */
      tokens?: OAuth2Tokens;
      /** A server with an open session said its tools changed (`notifications/tools/list_changed`). */
      onToolsChanged?: (target: McpTarget) => void;
      /** A line a server run as a command wrote to its standard error, or a log message it sent. */
      onServerLog?: (target: McpTarget, line: string, level?: EngineLogLevel) => void;
      /** Answers a server's `sampling/createMessage` (targets with `sampling` only). */
      sample?: SampleFn;
    } = {},
  ) {}

  /** Every tool the server lists, following its pages (see listAll: each checked alone). */
  list(target: McpTarget, limits: McpLimits): Promise<McpListedTool[]> {
    return this.withClient(target, limits, (client, signal) =>
      listAll(client, loadedMcpSdk()!, { timeout: limits.timeoutMs, signal }),
    );
  }

  call(
    target: McpTarget,
    name: string,
    args: Record<string, unknown>,
    limits: McpLimits,
    asTask = false,
  ): Promise<McpCallResult> {
    // The turn's trace rides in the call's `_meta`; the fetch copies it to the HTTP header.
    const _meta = limits.traceId
      ? { traceparent: traceparent(limits.traceId, limits.parent) }
      : undefined;
    // The SDK writes strings as JSON does: half a character (`"\ud800"` in the model's JSON)
    // would reach the server as that escape, which one in Python or Rust may refuse.
    const whole = JSON.parse(JSON.stringify(args, wholeCharacters)) as typeof args;
    const params = { name, arguments: whole, ...(_meta && { _meta }) };
    // The call's time stands still while its server waits for its user's answer.
    const { timeoutMs, asker } = limits;
    const timedOut = () => new (loadedMcpSdk()!.McpError)(REQUEST_TIMEOUT, 'Request timed out');
    const deadline = new CallDeadline(timeoutMs, timedOut);
    const pausing = asker?.ask && { ...asker, ask: deadline.pausing(asker.ask) };
    return this.withClient(
      target,
      { ...limits, asker: pausing || asker },
      async (client, signal) => {
        const onprogress = limits.onProgress;
        if (asTask)
          return callAsTask(await mcpSdk(), client, params, { deadline, signal, onprogress });
        deadline.start();
        try {
          return (await whileRunning([signal, deadline.signal], (both) =>
            client.callTool(params, undefined, {
              // The SDK's own timer only backs up the deadline's.
              timeout: deadline.backstopMs,
              signal: both,
              onprogress,
            }),
          )) as McpCallResult;
        } finally {
          deadline.clear();
        }
      },
    );
  }

  /** Connections open now, shared ones and sessions' own. */
  get size(): number {
    return this.sessions.all().reduce((size, pool) => size + pool.size, this.connections.size);
  }

  /** The session `id` is over: its own connections are closed (once their calls have ended). */
  endSession(id: string): void {
    this.sessions.end(id);
  }

  /**
   * Stops the servers run as commands that `keep` (keys of `targetKey`) does not name: tools no
   * longer in use. A server at a URL is left to the pool's own rule (least recently used).
   */
  release(keep: ReadonlySet<string>): void {
    for (const pool of [this.connections, ...this.sessions.all()])
      for (const [key, connection] of [...pool.entries()])
        if (key.startsWith('["stdio"') && !keep.has(key)) this.letGo(pool, key, connection);
  }

  /** Closes every connection (the server's sessions end). */
  async close(): Promise<void> {
    const open = [...this.connections.values()];
    for (const pool of this.sessions.all()) open.push(...pool.values());
    this.sessions.clear();
    this.connections.clear();
    await Promise.all(open.map(closeConnection));
  }

  /** `use` of a connection to `target`, with the signal its requests take (see `whileRunning`). */
  private async withClient<T>(
    target: McpTarget,
    limits: McpLimits,
    use: (client: Client, signal: AbortSignal | undefined) => Promise<T>,
  ): Promise<T> {
    const key = targetKey(target);
    // Its session's own connection (`per_session`), or a shared one.
    const pool = limits.session === undefined ? this.connections : this.sessions.of(limits.session);
    this.sessions.admit(pool, key, limits.maxSessions);
    for (let attempt = 1; ; attempt++) {
      const reused = pool.has(key);
      const connection = this.connection(pool, key, target, limits.timeoutMs);
      connection.busy++;
      const { asker } = limits;
      if (asker) connection.calls.add(asker);
      try {
        const client = await connection.client;
        return await whileRunning(limits.signal, (signal) => use(client, signal));
      } catch (caught) {
        const error = lostBecause(caught, connection.failure);
        // A connection that failed is dropped; a call cut short, or an error the server answered
        // (an MCP error, a timeout), says nothing against it: other calls may be using it.
        const broken = !limits.signal?.aborted && !isServerAnswer(error);
        if (broken) this.lose(pool, key, connection);
        if (attempt > 1 || !reused || limits.signal?.aborted || !notTaken(error)) throw error;
      } finally {
        if (asker) connection.calls.delete(asker);
        connection.busy--;
        if (connection.dropped && connection.busy === 0) void closeConnection(connection);
      }
    }
  }

  private connection(pool: Pool, key: string, target: McpTarget, timeoutMs: number): Connection {
    const open = pool.get(key);
    if (open) return open;
    // A session that ends under the pool (the older transport's stream failed) is let go at once,
    // so that the next call does not meet it closed.
    const calls = new Set<Asker>();
    const client = this.connect({ target, timeoutMs, calls }, (reason, reopen) => {
      connection.failure ??= reason;
      this.lose(pool, key, connection);
      if (reopen && pool === this.connections) this.connection(pool, key, target, timeoutMs);
    });
    const connection: Connection = { client, busy: 0, dropped: false, calls };
    pool.set(key, connection);
    connection.client.then(
      () => this.lost.delete(key) && this.options.onToolsChanged?.(target),
      () => this.lose(pool, key, connection),
    );
    return connection;
  }

  /** `connection` broke, or could not be opened: let go, its server's list read again once back. */
  private lose(pool: Pool, key: string, connection: Connection): void {
    // Servers and headers never called again (a user's token) are forgotten, the oldest first.
    this.lost.set(key, true);
    this.letGo(pool, key, connection);
  }

  /** Takes `connection` out of `pool`, if it is still there (closed once its calls end). */
  private letGo(pool: Pool, key: string, connection: Connection): void {
    if (pool.peek(key) === connection) pool.delete(key);
  }

  /**
   * A session over Streamable HTTP; with a server that refuses its first POST with HTTP 4xx (but
   * 401/403), over the older HTTP+SSE transport (MCP 2024-11-05) at the same URL, as the MCP
   * specification's backwards compatibility has clients do.
   */
  private async connect(
    opening: Opening,
    failed: (reason: string, reopen?: boolean) => void,
  ): Promise<Client> {
    const { target, timeoutMs } = opening;
    if (target.stdio) {
      const client = this.client(await mcpSdk(), opening);
      const limits = { maxBytes: this.maxResponseBytes, timeoutMs };
      await connectCommand(client, target.stdio, limits, {
        log: (line) => this.options.onServerLog?.(target, line),
        ended: failed,
      });
      return client;
    }
    const url = new URL(target.url);
    const { tokens } = this.options;
    const options = {
      requestInit: { headers: target.headers },
      fetch: sessionFetch(target, {
        maxBytes: this.maxResponseBytes,
        timeoutMs,
        ...(tokens && { tokens }),
        // Heard on the stream of its messages: a new session is opened at once, to hear them.
        sessionLost: () => failed('the MCP server forgot the session', true),
      }),
    };
    const sdk = await mcpSdk();
    const client = this.client(sdk, opening);
    try {
      await client.connect(new sdk.StreamableHTTPClientTransport(url, options), {
        timeout: timeoutMs,
      });
      return client;
    } catch (error) {
      if (!isStreamableHttpError(error) || !legacyRefusal(error.code)) throw error;
      try {
        const legacy = this.client(sdk, opening);
        return await connectLegacy(sdk, legacy, { url: new URL(url), options, timeoutMs }, failed);
      } catch (legacyError) {
        // Its event stream refused too (HTTP 4xx or 5xx): not a server of the older transport
        // either, and its answer to the POST is the one that says what is wrong.
        throw httpStatusOf(legacyError) === undefined ? legacyError : error;
      }
    }
  }

  private client(sdk: McpSdk, { target, calls }: Opening): Client {
    const { sample } = this.options;
    const log = (line: string, level?: EngineLogLevel) =>
      this.options.onServerLog?.(target, line, level);
    return newClient(sdk, this.clientName, {
      toolsChanged: () => this.options.onToolsChanged?.(target),
      log,
      elicit: elicitor(calls, log),
      ...(target.sampling &&
        sample && { sample: sampler(sample, target.sampling.maxTokens, log, calls) }),
    });
  }
}
