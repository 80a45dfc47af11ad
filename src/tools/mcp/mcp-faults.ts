/** How requests to MCP servers fail, and what that says about their connection. */
import { neverSentCode } from '../tool-retry.js';
import { untrustedCertificate } from '../../common/connection-error.js';
import { followSignals } from '../../common/request-signal.js';
import { maskSecrets } from '../tool-secrets.js';
import { TOO_LARGE, UNANSWERED } from './mcp-fetch.js';
import {
  loadedMcpSdk,
  CONNECTION_CLOSED,
  isMcpError,
  isStreamableHttpError,
  REQUEST_TIMEOUT,
} from './mcp-sdk.js';

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
 * Runs a request with a signal of its own (a plain one) that follows `outer` (each of them) only
 * until the request settles. The SDK never stops listening to a request's signal, and tells the
 * server `notifications/cancelled` whenever it aborts: given the turn's signal itself, every call
 * the turn made would be "cancelled" on the server when the turn ends, long after it was
 * answered. And Node keeps for ever a composite signal (`AbortSignal.any`) or a timeout's that
 * has a listener (until it is taken off): given one, the SDK's listener kept the call's whole turn.
 */
export async function whileRunning<T>(
  outer: AbortSignal | undefined | readonly (AbortSignal | undefined)[],
  request: (signal: AbortSignal | undefined) => Promise<T>,
): Promise<T> {
  const outers = Array.isArray(outer) ? outer : [outer];
  if (!outers.some((signal) => signal !== undefined)) return request(undefined);
  const { controller, release } = followSignals(outers);
  try {
    return await request(controller.signal);
  } finally {
    release();
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
  // The transport's check of a message, then the SDK's of a result (zod's two error classes).
  if (err.name === 'ZodError')
    return `the MCP server's answer is not a JSON-RPC message of MCP (${ENDPOINT_HINT})`;
  if (err.name === '$ZodError' || error instanceof ShapeError)
    return `the MCP server's answer does not keep to MCP: ${wrongPart((error as ShapeError).issues)}`;
  return undefined;
}

/** A result of the wrong shape the engine found itself (its issues as zod gives them). */
export class ShapeError extends Error {
  constructor(readonly issues: unknown[]) {
    super(`the MCP server's answer does not keep to MCP: ${wrongPart(issues)}`);
  }
}

interface SchemaIssue {
  code?: string;
  path?: PropertyKey[];
  message?: string;
  /** An `invalid_union`'s issues, one list per alternative. */
  errors?: SchemaIssue[][];
}

/**
 * Where a result breaks MCP's schema and how, in a line (`content/0/text: Invalid input: expected
 * string, received null`): of a union (a content block's kinds), the alternative of the block's
 * own `type`.
 */
export function wrongPart(issues: unknown[] | undefined): string {
  let issue = (issues as SchemaIssue[] | undefined)?.[0];
  const path: PropertyKey[] = [];
  while (issue) {
    path.push(...(issue.path ?? []));
    if (issue.code !== 'invalid_union') break;
    const ownKind = issue.errors?.find(
      (alternative) =>
        !alternative.some((i) => i.code === 'invalid_value' && i.path?.join('/') === 'type'),
    );
    if (!ownKind?.[0]) return `${path.map(String).join('/') || 'the result'}: of no kind MCP has`;
    issue = ownKind[0];
  }
  return `${path.map(String).join('/') || 'the result'}: ${issue?.message ?? 'the wrong shape'}`;
}

/**
 * The server (or the SDK, having its list) refused a plain call of a tool it runs only as a task:
 * the TypeScript SDK says so with -32600, the Rust SDK with -32601, each naming the task.
 */
export function requiresTask(error: unknown): boolean {
  const err = error as { code?: unknown; message?: unknown };
  return (
    isMcpError(error) &&
    (err.code === -32600 || err.code === -32601) &&
    typeof err.message === 'string' &&
    /\btask/i.test(err.message)
  );
}

/** The SDK gave up waiting for the answer, or the connection timed out. */
export function timedOut(error: unknown): boolean {
  const err = error as { code?: unknown; name?: string };
  return err.code === REQUEST_TIMEOUT || err.name === 'TimeoutError';
}

/** A server run as a command that could not be started (its program missing, not executable). */
export function notStarted(error: unknown): error is { code: string; path?: string } {
  const err = error as { code?: unknown; syscall?: unknown };
  return typeof err.code === 'string' && String(err.syscall).startsWith('spawn');
}

/**
 * The call never reached its server: a refused connection, a name that does not resolve, a
 * command that could not be started (see ToolOutcome's `notActed`).
 */
export function neverSent(error: unknown): boolean {
  return notStarted(error) || neverSentCode((error as { cause?: { code?: string } }).cause?.code);
}

/** Timed out, unreachable, an answer cut, or an HTTP 5xx: the server, not the call, failed. */
export function serverDown(error: unknown): boolean {
  if (timedOut(error) || notStarted(error)) return true;
  if ((error as { cause?: { code?: string } }).cause?.code) return true;
  const { code } = error as { code?: unknown };
  if (code === CONNECTION_CLOSED || code === UNANSWERED) return true;
  return isStreamableHttpError(error) && (error.code ?? 0) >= 500;
}

/**
 * Why a server's tools cannot be listed (`server`: how the log names it, when the message does not
 * sit under the tool's place), `secrets` masked.
 */
export function listingFailure(
  error: unknown,
  timeoutSecs: number,
  secrets: Record<string, string>,
  server?: string,
): string {
  const detail = maskSecrets(describeFailure(error, timeoutSecs), secrets);
  return `cannot list the tools of the MCP server${server ? ` ${server}` : ''}: ${detail}`;
}

/** What the model (and the log) reads of a failed request to an MCP server. */
export function describeFailure(error: unknown, timeoutSecs: number): string {
  const err = error as { code?: unknown; message?: string; cause?: { code?: string } };
  if (timedOut(error)) return `timed out after ${timeoutSecs}s`;
  if (notStarted(error)) return `cannot start the MCP server (${error.code}: ${error.path})`;
  if (err.code === TOO_LARGE || err.code === UNANSWERED)
    return (err.message ?? '').replace(/^MCP error -?\d+: /, '');
  if (err.code === CONNECTION_CLOSED) {
    const why = (err.message ?? '').replace(/^MCP error -?\d+: /, '');
    const lost = 'the connection to the MCP server was lost';
    return why === 'Connection closed' || why === '' ? lost : `${lost}: ${why}`;
  }
  const certificate = untrustedCertificate(error);
  if (certificate) return `the TLS certificate of the MCP server is not trusted (${certificate})`;
  if (err.cause?.code) return `cannot reach the MCP server (${err.cause.code})`;
  const cause = (err.cause as { message?: string } | undefined)?.message;
  if (err.message === 'fetch failed' && cause) return `cannot reach the MCP server (${cause})`;
  const notMcp = notMcpAnswer(error);
  if (notMcp) return notMcp;
  if (isStreamableHttpError(error)) {
    // The SDK's text is "Error POSTing to endpoint: <body>"; the status says more.
    const body = (err.message ?? '').replace(/^.*?endpoint(?: \(HTTP \d+\))?:\s*/s, '').trim();
    return `the MCP server answered HTTP ${String(err.code)}${body ? `: ${body}` : ''}`;
  }
  return err.message || String(error);
}
