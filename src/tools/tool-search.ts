/**
 * `"type": "tool_search"` and `"deferred": true`: a large set's tools kept out of the model's
 * requests until it looks for them. The model calls the search tool with a few words of what the
 * user wants; the deferred tools that match best (MiniSearch: BM25 over the stems of each tool's
 * name, description and parameters) are named in its result, and offered from the next request on, for
 * as long as that result is in the history sent. Pure: no Nest import.
 */
import MiniSearch from 'minisearch';
import { stemmer } from 'stemmer';
import type { ChatMessage } from '../llm/llm.types.js';
import { ownTool } from './definition-fields.js';
import { ToolDefinitionError, where } from './definition-error.js';
import type { JsonSchema, Tool, ToolDefinitionInput } from './tool-definition.js';
import type { ToolInvocation, ToolOutcome } from './tool-executor.js';

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
  };
}

/**
 * A deferred tool is reachable only through a search tool of the set, and a search tool is how
 * they are reached: it cannot be deferred itself.
 */
export function checkDeferred(tools: readonly Tool[], source: string): void {
  const search = tools.findIndex((t) => t.kind === 'tool_search');
  if (search >= 0 && tools[search]!.deferred)
    throw new ToolDefinitionError(
      `${where(source, search, tools[search]!.name)}: field 'deferred': a tool_search tool is how deferred tools are found; it cannot be deferred itself`,
    );
  const first = tools.findIndex((t) => t.deferred);
  if (first >= 0 && search < 0)
    throw new ToolDefinitionError(
      `${where(source, first, tools[first]!.name)}: field 'deferred': the set has no tool of type "tool_search" for the model to find it with: add one ({"type": "tool_search", "name": "find_tools"})`,
    );
}

/** Words that say nothing of what a tool does. */
const STOP_WORDS = new Set(
  'a an and are as at be by can do for from i in is it me my of on or please that the this to tool tools user want wants with you your'.split(
    ' ',
  ),
);

/** A tool's name as words: `get_invoice`, `getInvoice`, `billing.get-invoice` → `get invoice`. */
function nameWords(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_.-]+/g, ' ');
}

/** The names and descriptions of a tool's parameters (its top-level ones). */
function parameterWords(tool: Tool): string {
  const properties = (tool.parameters as { properties?: Record<string, unknown> }).properties;
  return Object.entries(properties ?? {})
    .map(([name, schema]) => {
      const description = (schema as { description?: unknown } | null)?.description;
      return `${nameWords(name)} ${typeof description === 'string' ? description : ''}`;
    })
    .join(' ');
}

/** The tools of `catalogue` that best match `query`, best first, at most `max`. */
export function searchTools(query: string, catalogue: readonly Tool[], max: number): Tool[] {
  if (catalogue.length === 0) return [];
  const index = new MiniSearch<{ id: number; name: string; description: string; params: string }>({
    fields: ['name', 'description', 'params'],
    // Words by their stem (Porter's): "booking" finds "Books", "refunds" "refund".
    processTerm: (term) => {
      const word = term.toLowerCase();
      return STOP_WORDS.has(word) ? null : stemmer(word);
    },
    searchOptions: {
      boost: { name: 3, description: 1, params: 0.5 },
      // A word begun ("passw") finds the whole; a short one ("inv") says too little.
      prefix: (term) => term.length >= 4,
      fuzzy: (term) => (term.length >= 5 ? 0.2 : false),
      combineWith: 'OR',
    },
  });
  index.addAll(
    catalogue.map((tool, id) => ({
      id,
      name: nameWords(tool.name),
      description: tool.description,
      params: parameterWords(tool),
    })),
  );
  return index
    .search(query)
    .slice(0, max)
    .map((hit) => catalogue[hit.id as number]!);
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
 * The tools the searches in `history` found: those named in a result of a call of one of
 * `searchTools`' tools (by name).
 */
export function foundTools(
  history: readonly ChatMessage[],
  searchNames: ReadonlySet<string>,
): Set<string> {
  const found = new Set<string>();
  if (searchNames.size === 0) return found;
  const searches = new Set<string>();
  for (const message of history) {
    if (message.role === 'assistant') {
      for (const call of message.tool_calls ?? [])
        if (searchNames.has(call.function.name)) searches.add(call.id);
    } else if (message.role === 'tool' && searches.has(message.tool_call_id)) {
      for (const [, name] of message.content.matchAll(FOUND_LINE)) found.add(name!);
    }
  }
  return found;
}

/**
 * A call of the tool: the deferred tools the session may use (`context.findable`; all the
 * snapshot's for a call with no session) that match its query.
 */
export function runSearch(call: ToolInvocation, tool: Tool): ToolOutcome {
  // A string (its schema is checked before the call runs).
  const { query } = call.args as { query: string };
  const catalogue = call.context?.findable ?? call.snapshot.tools.filter((t) => t.deferred);
  const found = searchTools(query, catalogue, tool.maxResults ?? DEFAULT_MAX_RESULTS);
  return { ok: true, text: searchResult(query, found) };
}
