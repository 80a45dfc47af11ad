/**
 * The connections to MCP servers the engine keeps for calls, and how one is closed. Pure: no Nest
 * import.
 */
import type { Asker } from './mcp-elicitation.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

/** One connection: its client (connecting, then connected), the calls using it, whether it is let go. */
export interface Connection {
  client: Promise<Client>;
  busy: number;
  /** The `tools/call`s in flight on it, oldest first: whom a server's question may be for. */
  calls: Set<Asker>;
  dropped: boolean;
  /** Why the session ended under its calls, when it is known (the older transport's stream failed). */
  failure?: string;
  closed?: Promise<void>;
}

/** How long a server is given to end a session (HTTP DELETE) before the connection is closed anyway. */
const END_SESSION_MS = 2000;

/**
 * Closes the connection's session, once: over Streamable HTTP the server is told first (an HTTP
 * DELETE with its session id, as the specification asks of a client done with a session), so
 * that it frees what it held for it (a browser, a cart).
 */
export function closeConnection(connection: Connection): Promise<void> {
  connection.closed ??= connection.client
    .then(async (client) => {
      const transport = client.transport as { terminateSession?: () => Promise<void> } | undefined;
      if (transport?.terminateSession) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          transport.terminateSession().catch(() => undefined),
          new Promise((resolve) => (timer = setTimeout(resolve, END_SESSION_MS))),
        ]);
        clearTimeout(timer);
      }
      await client.close();
    })
    .catch(() => undefined);
  return connection.closed;
}

/** A connection taken out of use: closed once the calls using it have ended, never under them. */
export function drop(connection: Connection): void {
  connection.dropped = true;
  if (connection.busy === 0) void closeConnection(connection);
}

/** The connections kept for calls: the shared pool, or one session's own. */
export interface Pool {
  get(key: string): Connection | undefined;
  peek(key: string): Connection | undefined;
  set(key: string, connection: Connection): unknown;
  delete(key: string): unknown;
  has(key: string): boolean;
  entries(): IterableIterator<[string, Connection]>;
  values(): IterableIterator<Connection>;
}

/**
 * One session's own connections (`per_session` tools): each dropped as it is taken out. `held`
 * counts, by server, the connections all sessions hold (for `max_sessions`).
 */
export class SessionPool extends Map<string, Connection> implements Pool {
  constructor(private readonly held: Map<string, number>) {
    super();
  }

  peek(key: string): Connection | undefined {
    return this.get(key);
  }

  override set(key: string, connection: Connection): this {
    if (!this.has(key)) this.held.set(key, (this.held.get(key) ?? 0) + 1);
    return super.set(key, connection);
  }

  override delete(key: string): boolean {
    const connection = this.get(key);
    if (!connection) return false;
    drop(connection);
    const left = (this.held.get(key) ?? 1) - 1;
    if (left > 0) this.held.set(key, left);
    else this.held.delete(key);
    return super.delete(key);
  }
}

/**
 * The sessions' own pools, by session id, and how many sessions hold a connection to each server
 * (its `targetKey`), for `max_sessions`.
 */
export class SessionPools {
  private readonly pools = new Map<string, SessionPool>();
  private readonly held = new Map<string, number>();

  /** Session `session`'s pool, created at its first call. */
  of(session: string): SessionPool {
    let pool = this.pools.get(session);
    if (!pool) this.pools.set(session, (pool = new SessionPool(this.held)));
    return pool;
  }

  /**
   * Throws, saying so, when `pool`'s session would be one too many to hold a connection to the
   * server `key` (it holds none yet, and `max` others do).
   */
  admit(pool: Pool, key: string, max: number | undefined): void {
    if (max !== undefined && !pool.has(key) && (this.held.get(key) ?? 0) >= max)
      throw new Error(
        `the MCP server serves as many sessions as it may here (max_sessions ${max}); try again later`,
      );
  }

  /** Session `session` is over: its connections are dropped (closed once their calls end). */
  end(session: string): void {
    const pool = this.pools.get(session);
    this.pools.delete(session);
    for (const key of [...(pool?.keys() ?? [])]) pool!.delete(key);
  }

  /** Every session's pool. */
  all(): SessionPool[] {
    return [...this.pools.values()];
  }

  /** Forgets every pool (their connections are closed by the caller). */
  clear(): void {
    this.pools.clear();
  }
}
