/**
 * MCP tools completed from their server's list (`tools/list`): one tool's description, schema
 * and hints, and an entry for a server's tools (`"tools": "*"` or names) made the tools it names.
 * Pure: no Nest import.
 */
import { ToolDefinitionError, where } from '../definition-error.js';
import { parametersProblem } from '../parameters-schema.js';
import type { Tool, ToolDefinitionInput } from '../tool-definition.js';
import { targetOf, type McpListedTool } from './mcp-target.js';
import { uniqueName } from '../tool-names.js';

/** What says which of a server's tools an entry stands for: not part of the tools made. */
const GROUP_FIELDS = new Set(['tools', 'prefix', 'read_only', 'exclude']);

/** Whether an entry for all of a server's tools takes a tool it lists: `read_only`, `exclude`. */
export function amongAll(group: Tool): (listed: McpListedTool) => boolean {
  const readOnly = group.raw.read_only === true;
  const excluded = new Set(group.raw.exclude ?? []);
  return (t) => (!readOnly || t.annotations?.readOnlyHint === true) && !excluded.has(t.name);
}

/** The tool's description, schema and hints as its server lists them, where its entry gives none. */
export function fillListed(tool: Tool, found: McpListedTool, at: string): void {
  if (tool.raw.description === undefined) tool.description = found.description ?? '';
  if (tool.raw.parameters === undefined) {
    const problem = parametersProblem(found.inputSchema);
    if (problem)
      throw new ToolDefinitionError(
        `${at}: the MCP server's inputSchema for '${found.name}' ${problem}; give 'parameters'`,
      );
    tool.parameters = found.inputSchema;
  }
  const { readOnlyHint, destructiveHint, openWorldHint } = found.annotations ?? {};
  if (tool.raw.safe === undefined) tool.safe = readOnlyHint === true ? true : undefined;
  // A tool its server says reaches an open world (the web, mail) brings back what anyone wrote.
  if (tool.raw.untrusted === undefined) tool.untrusted = openWorldHint === true ? true : undefined;
  // MCP: a tool that is not read-only may be destructive, unless the server says it is not.
  if (tool.raw.confirm === 'destructive')
    tool.confirm = tool.safe !== true && destructiveHint !== false ? true : undefined;
  tool.mcpTask = found.execution?.taskSupport === 'required' ? true : undefined;
  // A search finds a deferred tool by the title its server gives it too ("Cancel an order").
  const titles = [found.title, found.annotations?.title].filter(
    (t): t is string => typeof t === 'string' && t.trim() !== '',
  );
  if (tool.deferred)
    tool.keywords =
      titles.length > 0 ? [...(tool.raw.keywords ?? []), ...titles] : tool.raw.keywords;
  tool.pending = undefined;
}

/** What a server lists, for a message: the first 50 names. */
export function listedNames(listed: readonly McpListedTool[]): string {
  const names = listed.slice(0, 50).map((t) => t.name);
  return names.join(', ') + (listed.length > 50 ? `, … (${listed.length} in all)` : '') || 'none';
}

/**
 * The tools an entry for a server's tools (`group`, at `index` of `source`) stands for, as its
 * server lists them (`listed`): each named `prefix` + its name (other characters than letters,
 * digits, `_` and `-` as `_`, cut to 64 characters, `_2`, `_3` … when two come out the same), its
 * entry the group's with `name` (and `tool`, the server's name, where it differs). A tool that
 * `leftOut` says the set has an entry of its own for (its name taken, or the same tool of the same
 * server) is left to that entry. Throws ToolDefinitionError when the server lacks a tool named.
 */
export function groupTools(
  group: Tool,
  listed: readonly McpListedTool[],
  leftOut: (name: string, remote: string) => boolean,
  source: string,
  index: number,
): Tool[] {
  const { tools: wanted, prefix } = group.mcpGroup!;
  const chosen =
    wanted === '*'
      ? listed.filter(amongAll(group))
      : wanted.map((name) => {
          const found = listed.find((t) => t.name === name);
          if (found) return found;
          throw new ToolDefinitionError(
            `${where(source, index)}: field 'tools': the MCP server has no tool '${name}' (it lists: ${listedNames(listed)})`,
          );
        });
  const shared = Object.fromEntries(
    Object.entries(group.raw).filter(([field]) => !GROUP_FIELDS.has(field)),
  );
  const made = new Set<string>();
  const out: Tool[] = [];
  for (const found of chosen) {
    const name = uniqueName(`${prefix}${found.name}`, made);
    if (leftOut(name, found.name)) continue;
    const raw = { ...shared, name, ...(name !== found.name && { tool: found.name }) };
    const tool: Tool = { ...group, name, remoteName: found.name, raw };
    if (wanted === '*') tool.mcpListedBy = group.raw;
    delete tool.mcpGroup;
    delete tool.pending;
    fillListed(tool, found, where(source, index, name));
    out.push(tool);
  }
  return out;
}

/**
 * The entries for all of a server's tools (`"tools": "*"`) that made tools of `tools` (of those
 * `only` holds), each as the entry it was, and the last tool it made: what the server lists anew
 * joins it there (see groupTools).
 */
export function groupsOf(
  tools: readonly Tool[],
  only?: ReadonlySet<Tool>,
): { group: Tool; last: Tool }[] {
  const lastOf = new Map<ToolDefinitionInput, Tool>();
  for (const tool of tools)
    if (tool.mcpListedBy && (!only || only.has(tool))) lastOf.set(tool.mcpListedBy, tool);
  return [...lastOf].map(([entry, last]) => {
    const prefix = entry.prefix ?? '';
    const group = { ...last, raw: entry, name: `${prefix}*`, mcpGroup: { tools: '*', prefix } };
    return { group: group as Tool, last };
  });
}

/** Whether `tools` has a tool of that name, or an entry of its own for that tool of `group`'s server. */
export function leftOutBy(tools: readonly Tool[], group: Tool) {
  const server = JSON.stringify(targetOf(group));
  return (name: string, remote: string) =>
    tools.some(
      (t) =>
        t.name === name ||
        (t.remoteName === remote && !t.mcpGroup && JSON.stringify(targetOf(t)) === server),
    );
}

/** What a server's list decides of a tool: what the model is offered, and how a call is run. */
const listedAs = (t: Tool) =>
  JSON.stringify([
    t.description,
    t.parameters,
    t.safe,
    t.untrusted,
    t.confirm,
    t.mcpTask,
    t.keywords,
    t.pending,
  ]);

/** The names of the tools `after` (a set listed again) offers or runs otherwise than `before`. */
export function relistedNames(before: readonly Tool[], after: readonly Tool[]): string[] {
  const was = new Map(before.map((t) => [t.name, listedAs(t)]));
  const is = new Set(after.map((t) => t.name));
  return [
    ...after.filter((t) => was.get(t.name) !== listedAs(t)).map((t) => t.name),
    ...before.filter((t) => !is.has(t.name)).map((t) => t.name),
  ];
}
