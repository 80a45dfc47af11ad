/**
 * MCP definitions completed from their servers' lists of tools, as a tools file or a change is
 * read (the calls themselves are mcp-tool.executor.ts'). Pure: no Nest import.
 */
import { ToolDefinitionError, where } from '../definition-error.js';
import type { Tool } from '../tool-definition.js';
import { needsListing } from './mcp-definition.js';
import { listingFailure } from './mcp-faults.js';
import {
  amongAll,
  fillListed,
  groupsOf,
  groupTools,
  leftOutBy,
  listedNames,
} from './mcp-listing.js';
import { targetOf, type McpListedTool, type McpTarget } from './mcp-target.js';

export interface CompleteOptions {
  /** A tool whose server cannot be reached is left pending, not refused. */
  defer?: boolean;
  /** Only these tools are completed. */
  only?: ReadonlySet<Tool>;
  /** The server said its list changed. */
  relisted?: boolean;
  /** The places of definitions in use, kept as they are. */
  kept?: ReadonlySet<number>;
  /** Where what the lists leave out, or leave pending, is said (the log by default; see ListingServer). */
  warn?: (line: string, pending?: boolean) => void;
}

/** What completing asks of the MCP servers and the engine. */
export interface ListingServer {
  /** The server's `tools/list`, within `timeoutMs`. */
  list(target: McpTarget, timeoutMs: number): Promise<McpListedTool[]>;
  /** The tools' timeout where a definition gives none (LLM_TOOL_TIMEOUT_SECS). */
  timeoutSecs: number;
  /** `pending`: a tool is left out for now (its server's state, not the set's: said in the log only). */
  warn(line: string, pending?: boolean): void;
}

/**
 * Fills in what MCP definitions leave out from their servers' lists of tools (one `tools/list`
 * per server): the description, the arguments' schema, and whether the tool changes nothing
 * (its `readOnlyHint`, unless `safe` is given). Throws ToolDefinitionError naming the tool and
 * field when a server lacks the tool, or cannot be reached — unless `defer`: then the tool is
 * left `pending`, not offered to the model. `only` limits the work to those tools. With
 * `relisted` (the server said its list changed), a tool it no longer lists is left pending too.
 * The `kept` places (definitions in use kept as they are) are left pending as with both. An
 * entry for a server's tools (`tools`) is replaced in `tools` by those it lists (groupTools).
 */
export async function completeListings(
  tools: Tool[],
  source: string,
  opts: CompleteOptions,
  server: ListingServer,
): Promise<void> {
  const lists = new Map<string, Promise<McpListedTool[]>>();
  /** A server's tools listed as MCP allows; the others each a warning (the first time). */
  const warned = new Set<McpListedTool>();
  const sound = (listed: McpListedTool[], at: string) =>
    listed.filter((t) => {
      if (t.flaw === undefined) return true;
      if (!warned.has(t)) {
        warned.add(t);
        server.warn(
          `${at}: the MCP server lists a tool as MCP does not allow, left out: '${t.name}': ${t.flaw}`,
        );
      }
      return false;
    });
  /** The server's list, or why it cannot be had (the tool left pending, with `defer`). */
  const listOf = async (tool: Tool, index: number, at: string) => {
    const target = targetOf(tool);
    if ('error' in target) throw new ToolDefinitionError(`${at}: ${target.error}`);
    const key = JSON.stringify(target);
    const timeoutSecs = tool.timeoutSecs ?? server.timeoutSecs;
    if (!lists.has(key)) lists.set(key, server.list(target, timeoutSecs * 1000));
    try {
      return { listed: await lists.get(key)! };
    } catch (error) {
      const why = listingFailure(error, timeoutSecs, tool.secrets);
      const field = tool.stdio ? 'command' : 'url';
      if (!opts.defer && !opts.kept?.has(index))
        throw new ToolDefinitionError(`${at}: field '${field}': ${why}`);
      // A server that is down must not keep the engine, and every other tool, from starting.
      tool.pending = why;
      server.warn(`${at}: not offered to the model until its server answers: ${why}`, true);
      return undefined;
    }
  };
  const todo = (tool: Tool) =>
    tool.kind === 'mcp' && needsListing(tool) && (!opts.only || opts.only.has(tool));
  for (const [index, tool] of tools.entries()) {
    if (!todo(tool) || tool.mcpGroup) continue;
    const at = where(source, index, tool.name);
    const listed = (await listOf(tool, index, at))?.listed;
    if (!listed) continue;
    const remote = tool.remoteName ?? tool.name;
    const found = listed.find((t) => t.name === remote);
    const field = tool.raw.tool === undefined ? 'name' : 'tool';
    const why = found?.flaw
      ? `the MCP server lists '${remote}' as MCP does not allow: ${found.flaw}`
      : !found && `the MCP server no longer lists '${remote}'`;
    if (why && (opts.relisted || opts.kept?.has(index))) {
      tool.pending = why;
      server.warn(`${at}: not offered to the model: ${tool.pending}`, true);
      continue;
    }
    if (found?.flaw) throw new ToolDefinitionError(`${at}: field '${field}': ${why}`);
    if (!found)
      throw new ToolDefinitionError(
        `${at}: field '${field}': the MCP server has no tool '${remote}' (it lists: ${listedNames(listed)})`,
      );
    fillListed(tool, found, at);
  }
  // Entries for a server's tools become them, in order: a tool the set has already (an entry
  // of its own, or of an entry for tools before) is left to it. Messages name the entry's place.
  const places = new Map(tools.map((t, i) => [t, i]));
  for (const group of tools.filter((t) => todo(t) && t.mcpGroup)) {
    const index = places.get(group)!;
    const all = (await listOf(group, index, where(source, index)))?.listed;
    if (!all) continue;
    const listed = sound(all, where(source, index));
    const made = groupTools(group, listed, leftOutBy(tools, group), source, index);
    if (made.length === 0)
      server.warn(
        `${where(source, index)}: the entry for the MCP server's tools makes none: ${listed.length === 0 ? 'it lists none' : group.mcpGroup!.tools === '*' && !listed.some(amongAll(group)) ? "'read_only' (those it marks readOnlyHint) and 'exclude' leave out each it lists" : 'the set has an entry of its own for each'}`,
      );
    tools.splice(tools.indexOf(group), 1, ...made);
  }
  // The server lists tools it did not: those of an entry for all its tools join them.
  if (!opts.relisted) return;
  for (const { group, last } of groupsOf(tools, opts.only)) {
    const index = tools.indexOf(last);
    const all = (await listOf(group, index, where(source, index)))?.listed;
    if (!all) continue;
    const made = groupTools(
      group,
      sound(all, where(source, index)),
      leftOutBy(tools, group),
      source,
      index,
    );
    tools.splice(index + 1, 0, ...made);
  }
}
