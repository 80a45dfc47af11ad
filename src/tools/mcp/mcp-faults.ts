/** How requests to MCP servers fail, and what that says about their connection. */
import { loadedMcpSdk, CONNECTION_CLOSED, isMcpError, isStreamableHttpError } from './mcp-sdk.js';

/**
 * Whether a request failed before the server took it, so sending it again on a new connection
 * can do nothing twice: the server forgot the session (HTTP 404 to its id, after a restart) or
 * refused the connection.
 */
export function notTaken(error: unknown): boolean {
  if (isStreamableHttpError(error)) return error.code === 404;
  // The older transport says it in its message (its POSTs, or the session it closed for them).
  if (error instanceof Error && /POSTing to endpoint \(HTTP 404\)/.test(error.message)) return true;
  const cause = (error as { cause?: { code?: string } }).cause;
  return cause?.code === 'ECONNREFUSED';
}

/**
 * Runs a request with a signal that follows `outer` only until the request settles. The SDK
 * never stops listening to a request's signal, and tells the server `notifications/cancelled`
 * whenever it aborts: given the turn's signal itself, every call the turn made would be
 * "cancelled" on the server when the turn ends, long after it was answered.
 */
export async function whileRunning<T>(
  outer: AbortSignal | undefined,
  request: (signal: AbortSignal | undefined) => Promise<T>,
): Promise<T> {
  if (!outer) return request(undefined);
  const inner = new AbortController();
  const follow = () => inner.abort(outer.reason);
  if (outer.aborted) follow();
  else outer.addEventListener('abort', follow, { once: true });
  try {
    return await request(inner.signal);
  } finally {
    outer.removeEventListener('abort', follow);
  }
}

/** A request failed by its connection closing says why the connection ended, when that is known. */
export function lostBecause(error: unknown, failure: string | undefined): unknown {
  const closed = isMcpError(error) && error.code === CONNECTION_CLOSED;
  return closed && failure ? new (loadedMcpSdk()!.McpError)(CONNECTION_CLOSED, failure) : error;
}

/** How a server of the older HTTP+SSE transport answers a POST to its stream's URL. */
export function legacyRefusal(status: number | undefined): boolean {
  return status !== undefined && status >= 400 && status < 500 && status !== 401 && status !== 403;
}

/**
 * An error the server sent as a JSON-RPC answer, or the client's own timeout: the session is
 * fine. Not a connection that closed under the request.
 */
export function isServerAnswer(error: unknown): boolean {
  return isMcpError(error) && error.code !== CONNECTION_CLOSED;
}

/** The HTTP status an event stream was refused with (the SDK's SseError carries it as `code`). */
export function httpStatusOf(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'number' && code >= 400 && code < 600 ? code : undefined;
}

const ENDPOINT_HINT = "is the tool's url the server's MCP endpoint?";

/**
 * An answer that is no MCP at all (a web page, another API's JSON), in words rather than the
 * SDK's: its "HTTP -1" for an unexpected content type, its schema check's issues dumped as JSON.
 */
export function notMcpAnswer(error: unknown): string | undefined {
  const err = error as { message?: unknown; name?: unknown };
  const type =
    typeof err.message === 'string' && /Unexpected content type: (.*)$/.exec(err.message);
  if (isStreamableHttpError(error) && type)
    return `the MCP server answered with ${type[1]!.trim() || 'no Content-Type'}, not MCP's JSON or event stream (${ENDPOINT_HINT})`;
  if (err.name === 'ZodError')
    return `the MCP server's answer is not a JSON-RPC message of MCP (${ENDPOINT_HINT})`;
  return undefined;
}
