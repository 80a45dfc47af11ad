/**
 * Calls from Python into the engine (`tools.*`, `ces_requests.*`): the code tools process sends
 * the request and waits, blocked, for the answer (see assets/python-sandbox.mjs). Pure: no Nest
 * import.
 */

/** A synchronous call from Python into the engine, answered by the job's bridge handler. */
export interface BridgeRequest {
  kind: 'tool' | 'http';
  payload: Record<string, unknown>;
}

export type BridgeHandler = (request: BridgeRequest) => Promise<Record<string, unknown>>;

const failure = (why: string) => ({ error: why, text: `Error: tool request failed: ${why}` });

/**
 * The largest answer for responses of up to `responseBytes` (LLM_TOOL_MAX_RESPONSE_BYTES): each
 * byte of a body is at most 6 in JSON (a control character, `\u0001`), with 1 MiB for the rest
 * (headers, cookies, its URL); never under 4 MiB.
 */
export const answerMaxBytes = (responseBytes: number): number =>
  Math.max(4 * 1024 * 1024, 6 * responseBytes + 1024 * 1024);

/**
 * The answer to `requestJson` as the JSON Python reads: the handler's, or why there is none.
 * Never rejects: the process waits for an answer.
 */
export async function bridgeAnswer(
  handler: BridgeHandler | undefined,
  requestJson: string,
  maxBytes: number,
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
  let text: string;
  try {
    text = JSON.stringify(answer);
  } catch (error) {
    // Longer than a string can be ("Invalid string length"), or not JSON at all.
    return JSON.stringify(
      failure(`the answer cannot be handed to the code: ${(error as Error).message}`),
    );
  }
  if (Buffer.byteLength(text) <= maxBytes) return text;
  return JSON.stringify(failure(`the answer is larger than ${maxBytes} bytes`));
}
