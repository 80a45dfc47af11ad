/**
 * `"type": "tool_search"` and `"deferred": true`: a large set's tools kept out of the model's
 * requests until it looks for them. The model calls the search tool with a few words of what the
 * user wants; the deferred tools that match best (tool-index.ts) are named in its result, and
 * offered from the next request on, for as long as that result is in the history sent (or a call
 * of the tool that ran). With `prefetch`, the best matches of the user's latest words are offered
 * at once. Pure: no Nest import.
 */
import type { ChatMessage } from '../llm/llm.types.js';
import { ownTool } from './definition-fields.js';
import { ToolDefinitionError, where } from './definition-error.js';
import type { JsonSchema, Tool, ToolDefinitionInput, ToolSnapshot } from './tool-definition.js';
import { mistaken, type ToolInvocation, type ToolOutcome } from './tool-executor.js';
import { searchTools, type Catalogue } from './tool-index.js';
import { toolErrors } from './tool-errors.js';

export const TOOL_SEARCH_DESCRIPTION =
  'Finds more tools: only some are in your list. Before saying you cannot do something, call it with a few words of what the user wants done (for example "refund an invoice"); the tools it finds can be called from then on.';

/** How many tools a search names by default (`max_results`). */
export const DEFAULT_MAX_RESULTS = 5;

const SEARCH_PARAMETERS: JsonSchema = {
  type: 'object',
  properties: {
    query: {
      type: 'string',
      minLength: 1,
      maxLength: 500,
      description: 'What the user wants done, in a few words',
    },
  },
  required: ['query'],
};

/** The tool (`at`: where it is, for an error): the model's way to the set's deferred tools. */
export function toolSearchTool(def: ToolDefinitionInput, at: string): Tool {
  if (def.parameters !== undefined)
    throw new ToolDefinitionError(
      `${at}: field 'parameters': a tool_search tool takes its query alone; leave 'parameters' out`,
    );
  return {
    ...ownTool('tool_search', def, TOOL_SEARCH_DESCRIPTION, SEARCH_PARAMETERS),
    maxResults: def.max_results ?? DEFAULT_MAX_RESULTS,
    ...(def.prefetch ? { prefetch: def.prefetch } : {}),
  };
}

/**
 * A deferred tool is reachable only through a search tool of the set, and a search tool is how
 * they are reached: it cannot be deferred itself. An assistant (`handoff`) given deferred tools
 * and no search tool finds them only by a search's `prefetch`: `warnings` says so.
 */
export function checkDeferred(tools: readonly Tool[], source: string, warnings: string[]): void {
  const searchDeferred = tools.findIndex((t) => t.kind === 'tool_search' && t.deferred);
  if (searchDeferred >= 0)
    throw new ToolDefinitionError(
      `${where(source, searchDeferred, tools[searchDeferred]!.name)}: field 'deferred': a tool_search tool is how deferred tools are found; it cannot be deferred itself`,
    );
  const first = tools.findIndex((t) => t.deferred);
  if (first >= 0 && !tools.some((t) => t.kind === 'tool_search'))
    throw new ToolDefinitionError(
      `${where(source, first, tools[first]!.name)}: field 'deferred': the set has no tool of type "tool_search" for the model to find it with: add one ({"type": "tool_search", "name": "find_tools"})`,
    );
  const deferred = new Set(tools.filter((t) => t.deferred).map((t) => t.name));
  const searches = new Set(tools.filter((t) => t.kind === 'tool_search').map((t) => t.name));
  tools.forEach((tool, index) => {
    const own = tool.handoff?.tools ?? [];
    const unreachable = own.filter((name) => deferred.has(name));
    if (unreachable.length > 0 && !own.some((name) => searches.has(name)))
      warnings.push(
        `${where(source, index, tool.name)}: field 'tools' names deferred tools (${unreachable.join(', ')}) but no tool_search tool (${[...searches].join(', ')}): the assistant cannot look for them`,
      );
  });
}

/** A description's first sentence, at most 200 characters: what the result says of a tool. */
function gist(description: string): string {
  const line = description.trim().split(/(?<=[.!?])\s/)[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/** What the model reads: the tools found, one a line (`- name: what it does`), or none. */
export function searchResult(query: string, found: readonly Tool[]): string {
  const asked = JSON.stringify(query);
  if (found.length === 0)
    return `No tool found for ${asked}. Search again with other words for what the user wants done (one or two words: "refund", "invoice"), or answer without a tool.`;
  const lines = found.map(
    (t) => `- ${t.name}${t.description.trim() ? `: ${gist(t.description)}` : ''}`,
  );
  return `Found for ${asked}; you can call these now:\n${lines.join('\n')}`;
}

/** A line of a search's result that names a tool found. */
const FOUND_LINE = /^- ([A-Za-z0-9_-]{1,64})(?::|$)/gm;

/**
 * The tools `history` has made known to the model: those named in a result of a call of one of
 * `searchNames`' tools, and those a call ran or found (any tool called whose result is not that
 * it is unknown: a deferred tool called before a search found it is found so, see notOffered).
 */
export function foundTools(
  history: readonly ChatMessage[],
  searchNames: ReadonlySet<string>,
): Set<string> {
  const found = new Set<string>();
  const calls = new Map<string, string>();
  for (const message of history) {
    if (message.role === 'assistant') {
      for (const call of message.tool_calls ?? []) calls.set(call.id, call.function.name);
    } else if (message.role === 'tool') {
      const name = calls.get(message.tool_call_id);
      if (name === undefined) continue;
      if (searchNames.has(name))
        for (const [, named] of message.content.matchAll(FOUND_LINE)) found.add(named!);
      else if (message.content !== toolErrors.unknownTool(name)) found.add(name);
    }
  }
  return found;
}

/**
 * The deferred tools of `catalogue` a request offers, by name: those `history` has made known
 * (`foundTools`), and, for search tools with a `prefetch`, the best matches of the user's latest
 * words (`said`, asked only then), found with no round of the model's.
 */
export function offeredDeferred(
  history: readonly ChatMessage[],
  searches: readonly Tool[],
  catalogue: Catalogue,
  said: () => readonly string[],
): Set<string> {
  const offered = foundTools(history, new Set(searches.map((t) => t.name)));
  const prefetch = Math.max(0, ...searches.map((t) => t.prefetch ?? 0));
  const words = prefetch > 0 ? said() : [];
  if (words.length > 0)
    for (const tool of searchTools(words.join('\n'), catalogue, prefetch)) offered.add(tool.name);
  return offered;
}

/**
 * The deferred tools of `findable` (those the session may use) that `snapshot` does not offer: a
 * search would find them, and a call of one finds it (see notOffered).
 */
export function unfound(findable: Catalogue | undefined, snapshot: ToolSnapshot): Tool[] {
  return (findable?.tools ?? []).filter(
    (t) => t.deferred && (findable!.only?.has(t.name) ?? true) && !snapshot.byName.has(t.name),
  );
}

/**
 * What the model reads of a call of a tool the request did not offer: a deferred tool the session
 * may use (`context.findable`) is found by the call (see foundTools), to be called again; any
 * other is unknown.
 */
export function notOffered(call: ToolInvocation): ToolOutcome {
  const deferred = unfound(call.context?.findable, call.snapshot).some((t) => t.name === call.name);
  // A deferred tool called before a search found it: found by the call, no mistake of the model's.
  return deferred
    ? { ok: false, text: toolErrors.notFoundYet(call.name), notActed: true }
    : mistaken('unknown_tool', toolErrors.unknownTool(call.name));
}

/**
 * A call of the tool: the deferred tools the session may use (`context.findable`; all the
 * snapshot's for a call with no session) that match its query.
 */
export function runSearch(call: ToolInvocation, tool: Tool): ToolOutcome {
  // A string (its schema is checked before the call runs).
  const { query } = call.args as { query: string };
  const catalogue = call.context?.findable ?? { tools: call.snapshot.tools };
  const found = searchTools(query, catalogue, tool.maxResults ?? DEFAULT_MAX_RESULTS);
  // Nothing found is a call that did not succeed: counted so (descriptions lacking the words).
  return { ok: found.length > 0, text: searchResult(query, found) };
}
