/**
 * Calls from Python into the engine (`tools.*`, `ces_requests.*`): the worker posts the request
 * and blocks on a SharedArrayBuffer until the main thread writes the answer there (see
 * assets/python-worker.mjs). Pure: no Nest import.
 */

/** The size of the buffer an answer is written to. */
export const DATA_BYTES = 4 * 1024 * 1024;

/** A synchronous call from Python into the engine, answered by the job's bridge handler. */
export interface BridgeRequest {
  kind: 'tool' | 'http';
  payload: Record<string, unknown>;
}

export type BridgeHandler = (request: BridgeRequest) => Promise<Record<string, unknown>>;

const failure = (why: string) => ({ error: why, text: `Error: tool request failed: ${why}` });

/** The answer to `requestJson` as the bytes the worker reads: the handler's, or why there is none. */
export async function bridgeAnswer(
  handler: BridgeHandler | undefined,
  requestJson: string,
): Promise<Uint8Array> {
  let answer: Record<string, unknown>;
  try {
    const request = JSON.parse(requestJson) as BridgeRequest;
    answer = handler
      ? await handler(request)
      : { ...failure('not available'), error: 'calls into the engine are not available here' };
  } catch (error) {
    answer = failure((error as Error).message);
  }
  const bytes = new TextEncoder().encode(JSON.stringify(answer));
  if (bytes.length <= DATA_BYTES) return bytes;
  return new TextEncoder().encode(JSON.stringify(failure('the answer is larger than 4 MiB')));
}

/** Writes an answer where the waiting worker reads it, and wakes the worker. */
export function deliver(
  control: SharedArrayBuffer,
  data: SharedArrayBuffer,
  bytes: Uint8Array,
): void {
  new Uint8Array(data).set(bytes);
  const state = new Int32Array(control);
  Atomics.store(state, 1, bytes.length);
  Atomics.store(state, 0, 1);
  Atomics.notify(state, 0);
}
