/**
 * Calls from Python into the engine (`tools.*`, `ces_requests.*`): the code tools process sends
 * the request and waits, blocked, for the answer (see assets/python-sandbox.mjs). Pure: no Nest
 * import.
 */

/** The largest answer a call into the engine gets. */
const ANSWER_MAX_BYTES = 4 * 1024 * 1024;

/** A synchronous call from Python into the engine, answered by the job's bridge handler. */
export interface BridgeRequest {
  kind: 'tool' | 'http';
  payload: Record<string, unknown>;
}

export type BridgeHandler = (request: BridgeRequest) => Promise<Record<string, unknown>>;

const failure = (why: string) => ({ error: why, text: `Error: tool request failed: ${why}` });

/** The answer to `requestJson` as the JSON Python reads: the handler's, or why there is none. */
export async function bridgeAnswer(
  handler: BridgeHandler | undefined,
  requestJson: string,
): Promise<string> {
  let answer: Record<string, unknown>;
  try {
    const request = JSON.parse(requestJson) as BridgeRequest;
    answer = handler
      ? await handler(request)
      : { ...failure('not available'), error: 'calls into the engine are not available here' };
  } catch (error) {
    answer = failure((error as Error).message);
  }
  const text = JSON.stringify(answer);
  if (Buffer.byteLength(text) <= ANSWER_MAX_BYTES) return text;
  return JSON.stringify(failure('the answer is larger than 4 MiB'));
}
