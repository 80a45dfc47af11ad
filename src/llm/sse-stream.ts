import { createParser } from 'eventsource-parser';
import type { Readable } from 'node:stream';
import type { CompletionDecoder } from './completion-decoder.js';
import { drainForReuse, MAX_BODY_CHARS, ReplyTooLarge } from './http-post.js';
import type { LlmEvent } from './llm.types.js';
import { parseJson } from './parsing/json.js';
import { errorMessageOf, StreamFault, unfinishedStream, type Watchdog } from './stream-fault.js';

/** A chunk of SSE comment lines and line breaks only. */
const KEEP_ALIVE = /^(?:\r\n|\r|\n|:[^\r\n]*(?:\r\n|\r|\n))+$/;

/**
 * Reads a streamed answer's SSE body: each event's chunk through `decoder`, its events to `emit`
 * as they come. A fault (an error event, a line that is not JSON, an event over MAX_BODY_CHARS,
 * the stream cut off before its end) is thrown once what came before it was emitted. Pure: no
 * Nest import.
 */
export async function readStream(
  body: Readable,
  contentType: string,
  decoder: CompletionDecoder,
  watchdog: Watchdog,
  emit: (e: LlmEvent) => void,
): Promise<void> {
  let finished = false;
  let fault: StreamFault | undefined;
  /** The body's start while no event has come: what a server that sent none sent instead. */
  let head = '';
  let sawEvent = false;
  // What was read since the last whole event: what the SSE parser holds.
  let pending = 0;
  /** The stream was cut off: what the parser held is read as its last event. */
  let ending = false;
  const parser = createParser({
    onEvent: (event) => {
      pending = 0;
      sawEvent = true;
      if (finished || fault) return;
      if (event.data === '[DONE]' || (event.data.length < 16 && event.data.trim() === '[DONE]')) {
        finished = true;
        return;
      }
      const json = parseJson(event.data);
      if (event.event === 'error') {
        // An SSE event typed `error`, whatever its data holds (text, {"message": …}, {"error": …}).
        const message =
          errorMessageOf(json) ?? (json as { message?: unknown } | undefined)?.message;
        fault = new StreamFault(
          `LLM server error: ${(typeof message === 'string' ? message : event.data).slice(0, 500)}`,
        );
        return;
      }
      if (json === undefined) {
        if (ending) return;
        fault = new StreamFault(
          `LLM stream sent a line that is not JSON: ${event.data.slice(0, 200)}`,
        );
        return;
      }
      for (const e of decoder.chunk(json)) {
        if (e.type === 'error') fault = new StreamFault(`LLM server error: ${e.message}`);
        else emit(e);
      }
    },
  });
  watchdog.arm('first chunk');
  // 'data' events rather than async iteration: no promise per chunk on this hot path.
  await new Promise<void>((resolve, reject) => {
    body.on('data', (chunk: string) => {
      // Comments only (a proxy's keep-alive while the model is queued or stalled) are no progress.
      if (KEEP_ALIVE.test(chunk)) watchdog.note('keep-alive comments only');
      else watchdog.arm('between chunks');
      pending += chunk.length;
      if (!sawEvent && head.length < 200) head += chunk.slice(0, 200);
      parser.feed(chunk);
      if (pending > MAX_BODY_CHARS && !fault)
        fault = new StreamFault(new ReplyTooLarge('an event').message);
      if (fault) body.destroy();
      if (finished || fault) resolve();
    });
    body.on('end', resolve);
    body.on('close', resolve);
    body.on('error', reject);
  });
  if (!finished && !fault) {
    // Cut off: the last event, whole but for its blank line, is kept; a cut line is not JSON.
    ending = true;
    parser.feed('\n\n');
    // Ended after the answer's finish_reason, without [DONE]: as the openai SDK, done.
    if (!fault && decoder.finished) finished = true;
  }
  if (finished) drainForReuse(body);
  else body.destroy();
  const tail = decoder.end();
  for (const e of tail) if (e.type !== 'done' || (finished && !fault)) emit(e);
  if (fault) throw fault;
  if (!finished) throw unfinishedStream(contentType, sawEvent ? '' : head);
}
