/** MCP tool definitions (`"type": "mcp"`) as the tools file gives them. Pure: no Nest import. */
import { MCP_SCHEMA } from '../definition-schema.js';
import { ToolDefinitionError, where } from '../definition-error.js';
import { optionalFields, originOf, targetAuth } from '../definition-fields.js';
import { DEFAULT_PARAMETERS, type Tool, type ToolDefinitionInput } from '../tool-definition.js';
import { mcpCommandOf, type CommandOptions } from './mcp-command.js';
import { DEFAULT_SAMPLING_MAX_TOKENS } from './mcp-sampling.js';

const MCP_FIELDS = new Set(Object.keys(MCP_SCHEMA.properties));
/** An `{argument}` placeholder (not a `${…}` reference): an MCP tool's arguments go to its server. */
const ARGUMENT_PLACEHOLDER = /(^|[^$])\{[^}]*\}/;

/** Whether the server must be asked for what the definition leaves out (its description or schema). */
export function needsListing(tool: Tool): boolean {
  return tool.raw.description === undefined || tool.raw.parameters === undefined;
}

/**
 * An MCP tool, its shape already checked against MCP_SCHEMA. Secrets (`${TOOL_SECRET_*}`) and
 * session variables may appear in the url and headers, argument placeholders may not; fields of
 * HTTP tools that do not apply (method, retries, …) are refused rather than silently ignored. A
 * server run as a `command` is checked by mcpCommandOf.
 */
export function mcpTool(
  def: ToolDefinitionInput,
  index: number,
  source: string,
  options: CommandOptions,
): Tool {
  const at = where(source, index, def.name);
  for (const field of Object.keys(def))
    if (!MCP_FIELDS.has(field))
      throw new ToolDefinitionError(
        `${at}: field '${field}' is not used by MCP tools (they take ${[...MCP_FIELDS].join(', ')})`,
      );
  checkGroup(def, at);
  if (def.max_sessions !== undefined && def.per_session !== true)
    throw new ToolDefinitionError(
      `${at}: field 'max_sessions' limits the sessions of "per_session": true, which the tool does not have`,
    );
  if (def.sampling_max_tokens !== undefined && def.sampling !== true)
    throw new ToolDefinitionError(
      `${at}: field 'sampling_max_tokens' limits the completions of "sampling": true, which the tool does not have`,
    );
  const command = mcpCommandOf(def, at, options);
  if (command)
    return {
      ...mcpToolFields(def),
      url: '',
      headers: {},
      secrets: command.secrets,
      stdio: command.stdio,
    };
  const { env } = options;
  const fields: Record<string, string> = { url: def.url! };
  for (const [key, value] of Object.entries(def.headers ?? {})) fields[`headers.${key}`] = value;
  for (const [field, value] of Object.entries(fields))
    if (ARGUMENT_PLACEHOLDER.test(value))
      throw new ToolDefinitionError(
        `${at}: field '${field}' has an {argument} placeholder: an MCP tool's arguments go to its server as they are`,
      );
  const sessioned = Object.values(fields).some((v) => v.includes('${session.'));
  if (sessioned && def.tools !== undefined)
    throw new ToolDefinitionError(
      `${at}: field 'tools' needs the server's list of tools, which cannot be read before a session (session variables in 'url' or 'headers'): give each tool an entry with 'description' and 'parameters'`,
    );
  if (sessioned && (def.description === undefined || def.parameters === undefined))
    throw new ToolDefinitionError(
      `${at}: field 'parameters' is required with session variables in 'url' or 'headers' (and so is 'description'): the server's list of tools cannot be read before a session`,
    );
  const { secrets, oauth2 } = targetAuth(def, at, env);
  // Requests to MCP servers do not go through the HTTP tools' address guard: the host is the admin's.
  if (originOf(def.url).includes('${session.'))
    throw new ToolDefinitionError(
      `${at}: field 'url' has a session variable in its host: an MCP tool names its server`,
    );
  return {
    ...mcpToolFields(def),
    url: def.url!,
    headers: { ...(def.headers ?? {}) },
    secrets,
    ...(oauth2 && { oauth2 }),
  };
}

/** Fields of one tool, which an entry for a server's tools (`tools`) takes from the server. */
const ONE_TOOL_FIELDS = ['name', 'tool', 'description', 'parameters'] as const;

/** An entry for a server's tools (`tools`) names none of them; `prefix` needs `tools`. */
function checkGroup(def: ToolDefinitionInput, at: string): void {
  if (def.tools === undefined) {
    if (def.name === undefined)
      throw new ToolDefinitionError(
        `${at}: field 'name' is required: expected a string of letters, digits, "_" or "-" (1 to 64 characters), or 'tools' ("*" or names) for the tools the MCP server lists`,
      );
    if (def.prefix !== undefined)
      throw new ToolDefinitionError(
        `${at}: field 'prefix' is put before the names of 'tools', which the entry does not have`,
      );
  }
  const choosing = (['read_only', 'exclude'] as const).find((field) => def[field] !== undefined);
  if (choosing && def.tools !== '*')
    throw new ToolDefinitionError(
      `${at}: field '${choosing}' chooses among all the tools the server lists ("tools": "*")${def.tools === undefined ? ', which the entry is not for' : ', not among those named'}`,
    );
  if (def.tools === undefined) return;
  for (const field of ONE_TOOL_FIELDS)
    if (def[field] !== undefined)
      throw new ToolDefinitionError(
        `${at}: field '${field}' is one tool's, and the entry is for the tools its server lists ('tools'): give that tool an entry of its own (the entry for all of them then leaves it out)`,
      );
}

/** What every MCP tool takes from its definition, wherever its server is. */
function mcpToolFields(def: ToolDefinitionInput): Omit<Tool, 'url' | 'headers' | 'secrets'> {
  return {
    kind: 'mcp',
    // An entry for a server's tools, until it becomes them: a name no tool can have.
    name: def.name ?? `${def.prefix ?? ''}*`,
    description: def.description ?? '',
    parameters: def.parameters ?? DEFAULT_PARAMETERS,
    method: 'POST',
    code: '',
    remoteName: def.tool ?? def.name ?? '',
    ...(def.tools !== undefined && { mcpGroup: { tools: def.tools, prefix: def.prefix ?? '' } }),
    ...(def.safe !== undefined && { safe: def.safe }),
    ...(def.max_concurrency !== undefined && { maxConcurrency: def.max_concurrency }),
    ...(def.per_session === true && { mcpPerSession: true as const }),
    ...(def.max_sessions !== undefined && { mcpMaxSessions: def.max_sessions }),
    ...(def.sampling === true && {
      mcpSampling: { maxTokens: def.sampling_max_tokens ?? DEFAULT_SAMPLING_MAX_TOKENS },
    }),
    ...optionalFields(def),
    raw: def,
  };
}
