/**
 * The event stream answering an MCP request (a POST), made to end with an answer to each request
 * it was sent for. Pure: no Nest import.
 */
import { isJsonObject } from '../../common/json-pointer.js';
import { createParser } from 'eventsource-parser';
import type { AnswerWatch } from './mcp-in-flight.js';

/** JSON-RPC code of an answer the engine would not read whole: larger than its limit. */
export const TOO_LARGE = -32099;
/** JSON-RPC code of a request whose event stream ended, or broke off, without its answer. */
export const UNANSWERED = -32098;

/** A JSON-RPC error answering request `id`, as the engine gives it for its server. */
export const rpcError = (id: string | number, code: number, message: string) => ({
  jsonrpc: '2.0',
  id,
  error: { code, message },
});

/** Why an answer past `maxBytes` is not read. */
export const tooLarge = (maxBytes: number) =>
  `the MCP server's answer is larger than LLM_TOOL_MAX_RESPONSE_BYTES (${maxBytes} bytes)`;

/**
 * `body` as the MCP SDK reads it, and then, for each of the requests `ids` it has not answered:
 * - past `maxBytes`, a TOO_LARGE error (the stream ends there): a server's answer never fills the
 *   engine's memory;
 * - when it ends, or breaks off (a server that crashed, a proxy that cut it), an UNANSWERED error,
 *   unless an event carried an id (the SDK then resumes the stream, as MCP lets it): the SDK
 *   would wait for the call's timeout otherwise.
 * `watch` learns its events' ids and its end, and ends it quietly once its requests were given up
 * (see RequestsInFlight).
 */
export function answeredEvents(
  body: ReadableStream<Uint8Array>,
  ids: readonly (string | number)[],
  maxBytes: number,
  watch?: AnswerWatch,
): ReadableStream<Uint8Array> {
  const pending = new Set(ids);
  let resumable = false;
  let size = 0;
  const parser = createParser({
    onEvent: (event) => {
      if (event.id) {
        resumable = true;
        watch?.eventId(event.id);
      }
      if (event.event && event.event !== 'message') return;
      for (const id of answered(event.data)) pending.delete(id);
    },
  });
  const decoder = new TextDecoder();
  const reader = body.getReader();
  const end = (
    controller: ReadableStreamDefaultController<Uint8Array>,
    code: number,
    message: string,
  ) => {
    watch?.over();
    const events = [...pending].map(
      (id) => `event: message\ndata: ${JSON.stringify(rpcError(id, code, message))}\n\n`,
    );
    if (events.length > 0) controller.enqueue(new TextEncoder().encode(`\n\n${events.join('')}`));
    controller.close();
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let read: Awaited<ReturnType<typeof reader.read>>;
      try {
        read = await reader.read();
      } catch (error) {
        // Given up: the SDK has forgotten its requests, and reads an end.
        if (watch?.givenUp) pending.clear();
        else if (resumable) {
          watch?.over();
          return controller.error(error);
        }
        const cause = (error as { cause?: { message?: string } }).cause?.message;
        return end(
          controller,
          UNANSWERED,
          `the MCP server's answer broke off${cause ? ` (${cause})` : ''}`,
        );
      }
      if (read.done) {
        if (resumable) {
          watch?.over();
          return controller.close();
        }
        return end(controller, UNANSWERED, 'the MCP server ended its answer without a result');
      }
      size += read.value.byteLength;
      if (size > maxBytes) {
        void reader.cancel();
        return end(controller, TOO_LARGE, tooLarge(maxBytes));
      }
      parser.feed(decoder.decode(read.value, { stream: true }));
      controller.enqueue(read.value);
    },
    cancel: (reason) => {
      watch?.over();
      return reader.cancel(reason);
    },
  });
}

/**
 * The id the JSON-RPC message `data` answers, as the SDK takes an answer: with a result object, or
 * an error with its code and message (the SDK drops one of another shape).
 */
function answered(data: string): (string | number)[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return [];
  }
  // A batch in one event is no message to the SDK: it answers nothing.
  return (Array.isArray(parsed) ? [] : [parsed]).flatMap((m: unknown) => {
    if (!m || typeof m !== 'object') return [];
    const { jsonrpc, id, result, error } = m as Record<string, unknown>;
    if (jsonrpc !== '2.0' || (typeof id !== 'string' && typeof id !== 'number')) return [];
    const answer =
      isJsonObject(result) ||
      (isJsonObject(error) && Number.isInteger(error.code) && typeof error.message === 'string');
    return answer ? [id] : [];
  });
}
