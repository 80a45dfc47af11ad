/**
 * What a set offers the model in every request: a set that offers more tools than OpenAI's API
 * takes in one request (128), or whose names, descriptions and schemas fill more than 96 KiB of
 * each request, is worth a warning when it is loaded. Pure: no Nest import.
 */
import type { Tool } from './tool-definition.js';

/** OpenAI's API refuses a request with more tools (`tools`: "a max of 128 functions"). */
export const MAX_OFFERED_TOOLS = 128;
/** About 24 000 tokens of every request, before the conversation's first word. */
export const MAX_OFFERED_BYTES = 96 * 1024;

/**
 * The warning for a set whose tools offered in every request (not deferred, not pending, not
 * callbacks) are too many or too large, naming how many and how large; none for a smaller one.
 */
export function offeredSizeWarning(tools: readonly Tool[], source: string): string | undefined {
  const offered = tools.filter(
    (t) => t.kind !== 'callback' && !t.deferred && t.pending === undefined,
  );
  const bytes = offered.reduce(
    (sum, t) =>
      sum +
      Buffer.byteLength(
        JSON.stringify({ name: t.name, description: t.description, parameters: t.parameters }),
      ),
    0,
  );
  if (offered.length <= MAX_OFFERED_TOOLS && bytes <= MAX_OFFERED_BYTES) return undefined;
  const kib = Math.round(bytes / 1024);
  return `${source}: the set offers ${offered.length} tools in every request, ${kib} KiB of names, descriptions and schemas (~${Math.round(bytes / 4 / 1000)}k tokens)${offered.length > MAX_OFFERED_TOOLS ? `: OpenAI's API takes at most ${MAX_OFFERED_TOOLS} in a request, and` : ':'} each request costs the model their reading and its choice among them; mark those the model seldom needs "deferred": true and add a {"type": "tool_search"} tool, or offer fewer`;
}
