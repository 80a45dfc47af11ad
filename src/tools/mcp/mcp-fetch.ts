/** The HTTP requests of MCP calls: the turn's trace context, and a bound on what is read. */
import { AsyncLocalStorage } from 'node:async_hooks';
import { traceparent } from '../../common/trace-context.js';

/** The trace id of the call whose requests are being sent (connections are shared by calls). */
export const traceIds = new AsyncLocalStorage<string | undefined>();

/** fetch, with a `traceparent` for the current call's trace unless the tool's headers set one. */
function tracedFetch(url: string | URL, init?: RequestInit): Promise<Response> {
  const traceId = traceIds.getStore();
  if (traceId === undefined) return fetch(url, init);
  const headers = new Headers(init?.headers);
  if (!headers.has('traceparent')) headers.set('traceparent', traceparent(traceId));
  return fetch(url, { ...init, headers });
}

/** JSON-RPC code of an answer the engine would not read whole: larger than its limit. */
export const TOO_LARGE = -32099;

/** The ids of the JSON-RPC requests a POST body carries. */
function requestIds(body: unknown): (string | number)[] {
  if (typeof body !== 'string') return [];
  try {
    const parsed: unknown = JSON.parse(body);
    return (Array.isArray(parsed) ? parsed : [parsed]).flatMap(
      (m: { id?: unknown; method?: unknown }) =>
        (typeof m.id === 'string' || typeof m.id === 'number') && typeof m.method === 'string'
          ? [m.id]
          : [],
    );
  } catch {
    return [];
  }
}

/**
 * `tracedFetch` whose answers to requests (POSTs) stop at `maxBytes`: the requests they answer
 * get a JSON-RPC error instead (TOO_LARGE), so that a server's answer never fills the engine's
 * memory. The long-lived stream of server notifications (GET) is not counted.
 */
export function boundedFetch(maxBytes: number) {
  return async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const response = await tracedFetch(url, init);
    if (init?.method !== 'POST' || !response.body || !response.ok) return response;
    const message = `the MCP server's answer is larger than LLM_TOOL_MAX_RESPONSE_BYTES (${maxBytes} bytes)`;
    const errors = requestIds(init.body).map((id) => ({
      jsonrpc: '2.0',
      id,
      error: { code: TOO_LARGE, message },
    }));
    const { status, statusText, headers } = response;
    const encoder = new TextEncoder();
    if (!headers.get('content-type')?.includes('text/event-stream')) {
      // A JSON answer is read whole anyway: read it here, within the limit.
      const read = await readAtMost(response.body, maxBytes);
      const body = read ?? encoder.encode(JSON.stringify(errors.length === 1 ? errors[0] : errors));
      return new Response(body, { status, statusText, headers });
    }
    // An event stream: the events within the limit, then the errors as events, then its end.
    let size = 0;
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          size += chunk.byteLength;
          if (size <= maxBytes) return controller.enqueue(chunk);
          const events = errors.map((e) => `event: message\ndata: ${JSON.stringify(e)}\n\n`);
          controller.enqueue(encoder.encode(`\n\n${events.join('')}`));
          controller.terminate();
        },
      }),
    );
    return new Response(body, { status, statusText, headers });
  };
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
