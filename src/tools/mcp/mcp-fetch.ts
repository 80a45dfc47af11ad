/** The HTTP requests of MCP calls: the turn's trace context, bearer tokens, and a bound on what is read. */
import { egressFetch } from '../../common/egress.js';
import type { OAuth2Config, OAuth2Tokens } from '../oauth2.js';
import {
  CREDENTIAL_HEADER,
  MAX_REDIRECTS,
  redirectOf,
  TOO_MANY_REDIRECTS,
} from '../../common/redirects.js';

import { answeredEvents, rpcError, TOO_LARGE, tooLarge } from './mcp-answer-stream.js';
import { RequestsInFlight } from './mcp-in-flight.js';
import type { McpTarget } from './mcp-target.js';
import { followingSignal } from '../../common/request-signal.js';

export { TOO_LARGE, UNANSWERED } from './mcp-answer-stream.js';

interface Message {
  id?: unknown;
  method?: unknown;
  params?: { _meta?: { traceparent?: unknown }; requestId?: unknown };
}

type Id = string | number;
const isId = (id: unknown): id is Id => typeof id === 'string' || typeof id === 'number';

/**
 * What a POST body's JSON-RPC messages say: the ids of its requests, those of the requests it
 * gives up (`notifications/cancelled`), and the `traceparent` a call carries in its `_meta` (how
 * OpenTelemetry's MCP conventions propagate a trace; the engine puts it there, connections being
 * shared by calls of different turns).
 */
function readBody(body: unknown): { ids: Id[]; cancels: Id[]; traceparent?: string } {
  if (typeof body !== 'string') return { ids: [], cancels: [] };
  let messages: Message[];
  try {
    const parsed: unknown = JSON.parse(body);
    messages = (Array.isArray(parsed) ? parsed : [parsed]) as Message[];
  } catch {
    return { ids: [], cancels: [] };
  }
  const ids = messages.flatMap((m) => (isId(m.id) && typeof m.method === 'string' ? [m.id] : []));
  const cancels = messages.flatMap((m) =>
    m.method === 'notifications/cancelled' && isId(m.params?.requestId) ? [m.params.requestId] : [],
  );
  const traceparent = messages.map((m) => m.params?._meta?.traceparent).find((t) => t);
  return { ids, cancels, ...(typeof traceparent === 'string' && { traceparent }) };
}

type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * fetch following redirects itself, at most MAX_REDIRECTS: one to another host (or from HTTPS to
 * plain HTTP) carries no credential header and none of `own` (the tool's headers, meant for its
 * server), so that a server that moved, or was made to redirect, hands no token elsewhere.
 */
export function redirectSafe(own: readonly string[], fetchFn: Fetch = egressFetch): Fetch {
  const toolHeaders = new Set(own.map((name) => name.toLowerCase()));
  return async (input, init) => {
    let url = new URL(input);
    let method = init?.method ?? 'GET';
    let body = init?.body;
    const headers = new Headers(init?.headers);
    for (let hop = 0; ; hop++) {
      const response = await fetchFn(url, { ...init, method, body, headers, redirect: 'manual' });
      const next = redirectOf(response.status, response.headers.get('location'), url, method);
      if (!next) return response;
      void response.body?.cancel(); // the redirect's own body is not read
      if (hop >= MAX_REDIRECTS) throw new Error(TOO_MANY_REDIRECTS);
      if (next.away)
        for (const name of [...headers.keys()])
          if (CREDENTIAL_HEADER.test(name) || toolHeaders.has(name)) headers.delete(name);
      url = next.url;
      if (!next.keepsBody) {
        [method, body] = ['GET', undefined];
        headers.delete('content-type');
      }
    }
  };
}

/**
 * `fetch` with a bearer token of the `oauth2` client on every request (see OAuth2Tokens: a
 * request the server refuses with HTTP 401 goes once more with a new token).
 */
export function withBearer(
  fetchFn: Fetch,
  tokens: OAuth2Tokens,
  config: OAuth2Config,
  timeoutMs: number,
): Fetch {
  return (url, init) =>
    tokens.authorised(
      config,
      timeoutMs,
      (token) => {
        const headers = new Headers(init?.headers);
        headers.set('Authorization', `Bearer ${token}`);
        return fetchFn(url, { ...init, headers });
      },
      (response) => {
        if (response.status !== 401) return false;
        void response.body?.cancel(); // the refused answer is not read: its connection is freed
        return true;
      },
    );
}

/**
 * fetch for an MCP connection. A call's request carries its `_meta.traceparent` as the HTTP
 * header too (unless the tool's headers set one). Answers to requests (POSTs) stop at
 * `maxBytes`: the requests they answer get a JSON-RPC error instead (TOO_LARGE), so that a
 * server's answer never fills the engine's memory; an event stream that ends without answering
 * them gets one too (UNANSWERED, see answeredEvents). On a long-lived event stream (GET: server
 * notifications, and every answer with the older HTTP+SSE transport) one event may not exceed
 * `maxBytes`: the stream fails there. The answer of requests the SDK gives up is let go (see
 * RequestsInFlight). Requests go through `fetch` (see redirectSafe). One for each connection.
 */
export function boundedFetch(
  maxBytes: number,
  fetch: Fetch = globalThis.fetch,
  /** The server forgot the session whose stream of messages it had opened (a restart). */
  sessionLost?: () => void,
) {
  const inFlight = new RequestsInFlight();
  /** The session whose stream of the server's messages (GET) is open. */
  let streamed: string | undefined;
  return async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const method = init?.method ?? 'GET';
    if (method !== 'GET' && method !== 'POST') return fetch(url, init); // DELETE: a session's end
    if (method === 'GET') {
      const asked = new Headers(init?.headers);
      // The SDK resuming the event stream of an answer given up: as from a server that offers none.
      if (inFlight.resumesGivenUp(asked.get('last-event-id')))
        return new Response(null, { status: 405, statusText: 'Method Not Allowed' });
      const session = asked.get('mcp-session-id') ?? undefined;
      const response = await fetch(url, init);
      // Its stream broken, the SDK opens it again: a 404 says the server no longer knows the
      // session (only then: a server may answer 404 for a stream it never offered).
      if (response.status === 404 && session !== undefined && session === streamed) {
        streamed = undefined;
        sessionLost?.();
      }
      if (!response.body || !response.headers.get('content-type')?.includes('text/event-stream'))
        return response;
      if (response.ok) streamed = session;
      const { status, statusText, headers } = response;
      return new Response(boundedEvents(response.body, maxBytes), { status, statusText, headers });
    }
    const { ids, cancels, traceparent } = readBody(init?.body);
    const sent = new Headers(init?.headers);
    if (traceparent && !sent.has('traceparent')) sent.set('traceparent', traceparent);
    const answer = inFlight.sent(ids);
    const signal = answer ? answer.follow(init?.signal ?? undefined) : init?.signal;
    let response: Response;
    try {
      response = await fetch(url, { ...init, headers: sent, ...(signal && { signal }) });
    } catch (error) {
      answer?.over();
      throw error;
    } finally {
      // Once the server was told, the answers it will not send are no longer waited for.
      for (const id of cancels) inFlight.cancelled(id);
    }
    if (!response.body || !response.ok) {
      answer?.over();
      return response;
    }
    const { status, statusText, headers } = response;
    if (!headers.get('content-type')?.includes('text/event-stream')) {
      // A JSON answer is read whole anyway: read it here, within the limit.
      const read = await readAtMost(response.body, maxBytes).finally(() => answer?.over());
      if (read) return new Response(read, { status, statusText, headers });
      const errors = ids.map((id) => rpcError(id, TOO_LARGE, tooLarge(maxBytes)));
      const body = JSON.stringify(errors.length === 1 ? errors[0] : errors);
      return new Response(body, { status, statusText, headers });
    }
    // An event stream: its events within the limit, then an error for each request not
    // answered, then its end.
    const body = answeredEvents(response.body, ids, maxBytes, answer);
    return new Response(body, { status, statusText, headers });
  };
}

/**
 * The fetch of one Streamable HTTP (or HTTP+SSE) connection to `target`: answers within
 * `maxBytes` (boundedFetch), redirects followed with care (redirectSafe), the tool's OAuth 2.0
 * bearer token, and a signal of its own for each request (the SDK gives every request the
 * session's: followingSignal).
 */
export function sessionFetch(
  target: McpTarget,
  options: { maxBytes: number; timeoutMs: number; tokens?: OAuth2Tokens; sessionLost?: () => void },
): Fetch {
  const { maxBytes, timeoutMs, tokens, sessionLost } = options;
  const bounded = boundedFetch(maxBytes, redirectSafe(Object.keys(target.headers)), sessionLost);
  return followingSignal(
    target.oauth2 && tokens ? withBearer(bounded, tokens, target.oauth2, timeoutMs) : bounded,
  );
}

/** The whole body, or undefined past `maxBytes` (reading stops there). */
async function readAtMost(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
): Promise<Uint8Array | undefined> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > maxBytes) return undefined; // leaving the loop cancels the rest of the body
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** An event stream that fails where one event grows past `maxBytes` (events end at a blank line). */
function boundedEvents(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
): ReadableStream<Uint8Array> {
  let size = 0; // bytes of the event being read
  // The last bytes of the chunk before, after its last blank line: one may be split between
  // chunks ("\r\n" | "\r\n"). They are counted in `size` already.
  let tail = Buffer.alloc(0);
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
        const seen = tail.length > 0 ? Buffer.concat([tail, bytes]) : bytes;
        let [from, counted] = [0, tail.length];
        for (let end = eventEnd(seen, from); ; end = eventEnd(seen, from)) {
          const upTo = end === -1 ? seen.length : end;
          size += Math.max(0, upTo - counted);
          counted = Math.max(counted, upTo);
          if (size > maxBytes)
            return controller.error(
              new Error(
                `an event from the MCP server is larger than LLM_TOOL_MAX_RESPONSE_BYTES (${maxBytes} bytes)`,
              ),
            );
          if (end === -1) break;
          [size, from] = [0, end];
        }
        tail = Buffer.from(seen.subarray(Math.max(from, seen.length - 3)));
        controller.enqueue(chunk);
      },
    }),
  );
}

/** Where the first event ending at or after `from` ends (past its blank line); -1 if none does. */
function eventEnd(bytes: Buffer, from: number): number {
  let end = -1;
  for (const separator of ['\n\n', '\r\n\r\n', '\r\r']) {
    const at = bytes.indexOf(separator, from);
    if (at !== -1 && (end === -1 || at + separator.length < end)) end = at + separator.length;
  }
  return end;
}
