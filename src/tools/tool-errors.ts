import { compactJson } from './compact-json.js';
import type { RateLimit } from './rate-table.js';

/** The texts the model receives when a tool cannot give a result (seed §6), verbatim. */
export const toolErrors = {
  unknownTool: (name: string) => `Error: unknown tool '${name}'`,
  invalidMethod: (verb: string, name: string) =>
    `Error: invalid HTTP method '${verb}' for tool '${name}'`,
  httpStatus: (statusLine: string, body: string) => `Error: HTTP ${statusLine} — ${body}`,
  requestFailed: (detail: string) => `Error: tool request failed: ${detail}`,
  /** The tool's circuit is open (LLM_TOOL_BREAKER_FAILURES): the call was not sent. */
  unavailable: (failures: number, retryInMs: number) =>
    `Error: tool request failed: not sent: the service is unavailable (its last ${failures} calls failed); it is tried again in ${Math.ceil(retryInMs / 1000)}s`,
  /** A tool's `max_concurrency` calls were running and none ended in time: the call was not sent. */
  busy: (max: number, waitedSecs: number) =>
    `Error: tool request failed: not sent: this tool runs at most ${max} call${max === 1 ? '' : 's'} at a time, and none of those running ended within ${waitedSecs}s`,
  /** A tool's `rate_limit` would let the call begin only after its timeout: it was not sent. */
  rateLimited: ({ calls, perMs, group }: RateLimit, waitSecs: number) =>
    `Error: tool request failed: not sent: ${group === undefined ? 'this tool makes' : `the tools of '${group}' make`} at most ${calls} call${calls === 1 ? '' : 's'} in ${perMs / 1000}s, and this one could not begin within ${waitSecs}s`,
  /** A tool's `max_calls_per_session` calls have run in the conversation: this one was not. */
  sessionCap: (max: number) =>
    `Error: tool request failed: not run: this tool runs at most ${max} time${max === 1 ? '' : 's'} in a conversation, and has run that often in this one`,
  /** A call still being written when the model's output reached its token limit: not run. */
  cutOff: () =>
    'Error: tool request failed: not run: your output reached its token limit before this call was complete (its arguments were cut off); make the call again, with shorter arguments',
  /**
   * A deferred tool the request did not offer (no search had found it): not run, its arguments
   * written without its schema; found by the call, it is offered from the next request on.
   */
  notFoundYet: (name: string) =>
    `Error: tool request failed: not run: '${name}' was not in your list of tools yet (a search finds such tools); it is there from now on: call it again, with the arguments its parameters ask for`,
  /** A `user_given` argument whose value the user did not give in the conversation. */
  notFromUser: (name: string, value: unknown) =>
    `Error: tool request failed: not run: the user has not given ${JSON.stringify(value)} ('${name}') in this conversation; ask them for it, rather than supply it yourself`,
  /** Arguments the model wrote that are not a JSON object (as it wrote them). */
  notAnObject: (raw: string) =>
    `Error: tool request failed: arguments are not a JSON object: ${raw}`,
  /** The same, as a code tool's runtime says it (a Python error). */
  codeNotAnObject: (raw: string) => `Error: TypeError: arguments are not a JSON object: ${raw}`,
};

export const TRUNCATION_SUFFIX = '… [truncated]';

/**
 * Cuts `text` to `maxChars` characters (code points, so a surrogate pair is never split)
 * and marks the cut. Text within the limit is returned unchanged.
 */
export function truncateResult(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  let units = 0;
  let chars = 0;
  while (units < text.length && chars < maxChars) {
    const code = text.charCodeAt(units);
    units += code >= 0xd800 && code <= 0xdbff && units + 1 < text.length ? 2 : 1;
    chars += 1;
  }
  if (units >= text.length) return text;
  return text.slice(0, units) + TRUNCATION_SUFFIX;
}

/**
 * What the model reads of a tool's result (or of the body of its HTTP error): JSON without the
 * whitespace between its tokens (compact-json.ts), cut to `maxChars` (truncateResult).
 */
export function resultText(text: string, maxChars: number): string {
  return truncateResult(compactJson(text), maxChars);
}
