/**
 * The index a `tool_search` searches: a tool set's `deferred` tools, by the stems of the words of
 * their names, keywords, descriptions and parameters (MiniSearch's BM25, Porter's stems), made
 * once for each set. Pure: no Nest import.
 */
import MiniSearch from 'minisearch';
import { stemmer } from 'stemmer';
import type { Tool } from './tool-definition.js';

/** What a search searches: the deferred tools of a set's `tools`, those `only` names if given. */
export interface Catalogue {
  /** A snapshot's tools (its deferred ones are indexed once for it). */
  tools: readonly Tool[];
  /** The names of the deferred tools searched (those the session may use); all when absent. */
  only?: ReadonlySet<string>;
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

interface Doc {
  id: number;
  name: string;
  description: string;
  params: string;
  keywords: string;
}

/** Each set's index, and the deferred tools its ids stand for. */
const indexes = new WeakMap<readonly Tool[], { index: MiniSearch<Doc>; deferred: Tool[] }>();

function indexOf(tools: readonly Tool[]): { index: MiniSearch<Doc>; deferred: Tool[] } {
  let made = indexes.get(tools);
  if (made) return made;
  const deferred = tools.filter((t) => t.deferred);
  const index = new MiniSearch<Doc>({
    fields: ['name', 'description', 'params', 'keywords'],
    // Words by their stem (Porter's): "booking" finds "Books", "refunds" "refund".
    processTerm: (term) => {
      const word = term.toLowerCase();
      return STOP_WORDS.has(word) ? null : stemmer(word);
    },
    searchOptions: {
      boost: { name: 3, keywords: 2, description: 1, params: 0.5 },
      // A word begun ("passw") finds the whole; a short one ("inv") says too little.
      prefix: (term) => term.length >= 4,
      fuzzy: (term) => (term.length >= 5 ? 0.2 : false),
      combineWith: 'OR',
    },
  });
  index.addAll(
    deferred.map((tool, id) => ({
      id,
      name: nameWords(tool.name),
      description: tool.description,
      params: parameterWords(tool),
      keywords: (tool.keywords ?? []).join(' '),
    })),
  );
  made = { index, deferred };
  indexes.set(tools, made);
  return made;
}

/** The deferred tools of `catalogue` that best match `query`, best first, at most `max`. */
export function searchTools(query: string, catalogue: Catalogue, max: number): Tool[] {
  const { index, deferred } = indexOf(catalogue.tools);
  if (deferred.length === 0 || max <= 0) return [];
  const { only } = catalogue;
  return index
    .search(query, only && { filter: (hit) => only.has(deferred[hit.id as number]!.name) })
    .slice(0, max)
    .map((hit) => deferred[hit.id as number]!);
}
