import { describe, unknownFields } from './field-hints.js';
import { shapeOf } from './tool-shapes.js';
import { endSessionTool } from './end-session-tool.js';
import { transferCallTool } from './transfer-call-tool.js';
import { checkHandoffs, handoffTool } from './handoff-tool.js';
import { checkDeferred, toolSearchTool } from './tool-search.js';
import { mcpTool } from './mcp/mcp-definition.js';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { compileQuery, type ResponseQuery } from './response-query.js';
import { turnFieldChecks } from './turn-field-checks.js';
import { ToolDefinitionError, where } from './definition-error.js';
import { argumentListChecks, bodyChecks, optionalFields, targetAuth } from './definition-fields.js';
import { clientCertificate } from './client-certificate.js';
import { MAX_JSON_DEPTH, nestedDeeper } from '../common/nesting.js';

export { ToolDefinitionError, where };
import { parametersProblem } from './parameters-schema.js';
import { unreadPatterns } from './schema-patterns.js';
import {
  DEFAULT_PARAMETERS,
  type Tool,
  type ToolDefinitionInput,
  isSafe,
} from './tool-definition.js';
import { HTTP_TOKEN } from '../common/http-fields.js';

/**
 * Refuses a definition with a field nested deeper than MAX_JSON_DEPTH, naming it, before
 * any step walks it (the schema checks, OpenAPI documents, the copies made of it).
 */
export function refuseDeepFields(input: unknown, source: string): void {
  if (!Array.isArray(input)) return;
  for (const [index, entry] of input.entries()) {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) continue;
    for (const [field, value] of Object.entries(entry as Record<string, unknown>))
      if (nestedDeeper(value, MAX_JSON_DEPTH))
        throw new ToolDefinitionError(
          `${where(source, index, (entry as { name?: unknown }).name)}: field '${field}' is nested more than ${MAX_JSON_DEPTH} levels deep`,
        );
  }
}

export interface ValidationResult {
  tools: Tool[];
  warnings: string[];
}

export interface ValidationOptions {
  /** Where `file` references of code tools are resolved. */
  baseDir?: string;
  /** Where `${TOOL_SECRET_*}` references of HTTP tools are read (the process environment). */
  env?: Record<string, string | undefined>;
  /** MCP tools may run their server as a command: any (the tools file's), or those `commandKey` names. */
  commands?: boolean | ReadonlySet<string>;
  /**
   * The definitions are one place of a larger set, checked there (a pending tool made ready):
   * what only the whole set can say (a handoff's tools, a deferred tool's search) is not asked
   * of them.
   */
  inSet?: boolean;
}

/**
 * Validates the structure of a whole set of definitions; any error rejects the set. A method that
 * is not an HTTP token is only a warning: it fails at execution (seed §6). Code tools get their
 * source here; their name, description and schema come from `analyzeCodeTools` afterwards.
 */
export function validateToolDefinitions(
  input: unknown,
  source: string,
  options: ValidationOptions = {},
): ValidationResult {
  if (!Array.isArray(input))
    throw new ToolDefinitionError(`${source}: expected a JSON array of tool definitions`);
  if (input.length === 0)
    throw new ToolDefinitionError(`${source}: the array holds no tool definition`);
  refuseDeepFields(input, source);
  const warnings: string[] = [];
  const tools = input.map((entry: unknown, index) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      const got = Array.isArray(entry) ? 'an array' : entry === null ? 'null' : typeof entry;
      throw new ToolDefinitionError(`${where(source, index)}: expected an object, got ${got}`);
    }
    const type = (entry as { type?: unknown }).type;
    const isCode = type === 'python' || type === 'callback';
    const { validate, schema, hints } = shapeOf(type);
    const name = (entry as { name?: unknown }).name;
    if (!validate(entry)) {
      const { field, why } = describe(validate.errors![0]!, hints);
      throw new ToolDefinitionError(`${where(source, index, name)}: field '${field}' ${why}`);
    }
    // MCP tools refuse a field they do not have (mcp-definition.ts); the others, older, warn.
    if (type !== 'mcp')
      for (const { field, meant } of unknownFields(entry, schema))
        warnings.push(
          `${where(source, index, name)}: field '${field}' is not one this kind of tool has, and is ignored${meant ? ` (did you mean '${meant}'?)` : ''}`,
        );
    if (entry.confirm_prompt !== undefined && !entry.confirm)
      throw new ToolDefinitionError(
        `${where(source, index, name)}: field 'confirm_prompt' is only used with "confirm": true`,
      );
    turnFieldChecks(entry, where(source, index, name));
    const aliases: string[] = [];
    const problem = entry.parameters && parametersProblem(entry.parameters, aliases);
    if (aliases.length > 0)
      warnings.push(
        `${where(source, index, name)}: field 'parameters' uses ${[...new Set(aliases)].map((a) => JSON.stringify(a)).join(', ')}, not a JSON Schema type: kept as written (the model sees it), and values are typed as vLLM types them`,
      );
    if (problem)
      throw new ToolDefinitionError(`${where(source, index, name)}: field 'parameters' ${problem}`);
    for (const pattern of entry.parameters ? unreadPatterns(entry.parameters) : [])
      warnings.push(
        `${where(source, index, name)}: field 'parameters': pattern ${JSON.stringify(pattern)} is not a regular expression this engine can read (JavaScript's, or Java's): values are not checked against it`,
      );
    if (isCode) return codeTool(entry, index, source, options);
    if (type === 'end_session') return endSessionTool(entry);
    if (type === 'transfer_call') return transferCallTool(entry, index, source);
    if (type === 'handoff') return handoffTool(entry, index, source);
    if (type === 'tool_search') return toolSearchTool(entry, where(source, index, name));
    if (type === 'mcp')
      return mcpTool(entry, index, source, { ...options, env: options.env ?? {} });
    return httpTool(entry, index, source, warnings, options);
  });
  // "destructive": approval asked of a tool whose calls may change something (its method, its
  // `safe`; an MCP tool until its server's marks are read, see fillListed).
  input.forEach((entry: ToolDefinitionInput, index) => {
    if (entry.confirm === 'destructive' && !isSafe(tools[index]!)) tools[index]!.confirm = true;
    if (entry.keywords !== undefined && !entry.deferred)
      throw new ToolDefinitionError(
        `${where(source, index, tools[index]!.name)}: field 'keywords' is what a search finds a deferred tool by, and this one is offered in every request: give it "deferred": true, or leave the keywords out`,
      );
  });
  checkDuplicates(tools, source);
  checkRateGroups(tools, source);
  // What only the whole set can say: the tools a handoff names, a search for the deferred.
  if (!options.inSet) {
    checkHandoffs(tools, source);
    checkDeferred(tools, source, warnings);
  }
  return { tools, warnings };
}

/** A tool's JMESPath field, compiled; refused naming the tool and field when it is not one. */
function jmesPath(
  def: ToolDefinitionInput,
  field: 'response_query' | 'error_query',
  at: string,
): ResponseQuery | undefined {
  const expression = def[field];
  if (expression === undefined) return undefined;
  const query = compileQuery(expression);
  if ('error' in query)
    throw new ToolDefinitionError(
      `${at}: field '${field}' is not a valid JMESPath expression: ${query.error}`,
    );
  return query;
}

function httpTool(
  def: ToolDefinitionInput,
  index: number,
  source: string,
  warnings: string[],
  options: ValidationOptions,
): Tool {
  const env = options.env ?? {};
  const at = where(source, index, def.name);
  const { secrets, oauth2 } = targetAuth(def, at, env);
  const certificate =
    def.client_certificate &&
    clientCertificate(def.client_certificate, at, {
      baseDir: options.baseDir ?? '.',
      env,
      warnings,
    });
  const query = jmesPath(def, 'response_query', at);
  const errorQuery = jmesPath(def, 'error_query', at);
  const method = (def.method ?? 'POST').toUpperCase();
  if (!HTTP_TOKEN.test(method)) {
    warnings.push(
      `${where(source, index, def.name)}: method ${JSON.stringify(def.method)} is not a valid HTTP method; calls to this tool will fail`,
    );
  }
  if (def.cache_secs !== undefined && !isSafe({ method, safe: def.safe }))
    throw new ToolDefinitionError(
      `${where(source, index, def.name)}: field 'cache_secs' is only for a tool whose requests change nothing: method GET, HEAD, OPTIONS or TRACE, or "safe": true`,
    );
  if (def.body !== undefined) bodyChecks(def, method, where(source, index, def.name), warnings);
  argumentListChecks(def, where(source, index, def.name), warnings);
  const idempotency = def.idempotency_header?.toLowerCase();
  if (Object.keys(def.headers ?? {}).some((h) => h.toLowerCase() === idempotency))
    throw new ToolDefinitionError(
      `${where(source, index, def.name)}: field 'idempotency_header' names a header that 'headers' sets too: the engine sets it, a new key for each call`,
    );
  return {
    kind: 'http',
    name: def.name!,
    description: def.description ?? '',
    parameters: def.parameters ?? DEFAULT_PARAMETERS,
    url: def.url!,
    method,
    headers: { ...(def.headers ?? {}) },
    secrets,
    code: '',
    ...(query && { responseQuery: query }),
    ...(errorQuery && { errorQuery }),
    ...(def.safe !== undefined && { safe: def.safe }),
    ...(def.cache_secs !== undefined && { cacheSecs: def.cache_secs }),
    ...(def.idempotency_header !== undefined && { idempotencyHeader: def.idempotency_header }),
    ...(def.query_styles !== undefined && { queryStyles: def.query_styles }),
    ...(def.query_arguments !== undefined && { queryArguments: def.query_arguments }),
    ...(def.header_arguments !== undefined && { headerArguments: def.header_arguments }),
    ...(def.placeholder_styles !== undefined && { placeholderStyles: def.placeholder_styles }),
    ...(def.body !== undefined && { body: def.body }),
    ...(certificate && { clientCertificate: certificate }),
    ...(def.max_concurrency !== undefined && { maxConcurrency: def.max_concurrency }),
    ...(oauth2 && { oauth2 }),
    ...optionalFields(def),
    raw: def,
  };
}

function codeTool(
  def: ToolDefinitionInput,
  index: number,
  source: string,
  options: ValidationOptions,
): Tool {
  if ((def.code === undefined) === (def.file === undefined)) {
    throw new ToolDefinitionError(
      `${where(source, index, def.name)}: field 'code' is required: give exactly one of 'code' or 'file'`,
    );
  }
  let code = def.code ?? '';
  if (def.file !== undefined) {
    const path = resolve(options.baseDir ?? '.', def.file);
    try {
      code = readFileSync(path, 'utf8').replace(/^\uFEFF/, ''); // a byte order mark is no code
    } catch (error) {
      throw new ToolDefinitionError(
        `${where(source, index, def.name)}: field 'file' cannot be read (${path}): ${(error as Error).message}`,
      );
    }
  }
  return {
    kind: def.type === 'callback' ? 'callback' : 'python',
    name: def.name ?? (def.type === 'callback' ? 'before_model_callback' : ''),
    description: def.description ?? '',
    parameters: def.parameters ?? DEFAULT_PARAMETERS,
    url: '',
    method: '',
    headers: {},
    secrets: {},
    code,
    ...(def.safe !== undefined && { safe: def.safe }),
    ...optionalFields(def),
    raw: def,
  };
}

export function checkDuplicates(tools: Tool[], source: string): void {
  const seen = new Map<string, number>();
  tools.forEach((tool, index) => {
    // (An entry for a server's tools names none: those it becomes are never named twice.)
    if (tool.kind === 'callback' || tool.name === '' || tool.mcpGroup || tool.openapiGroup) return;
    const first = seen.get(tool.name);
    if (first !== undefined) {
      throw new ToolDefinitionError(
        `${where(source, index, tool.name)}: field 'name' duplicates tool #${first}`,
      );
    }
    seen.set(tool.name, index);
  });
}

/** The tools of one `rate_limit` group share one quota: each must give it the same limit. */
function checkRateGroups(tools: Tool[], source: string): void {
  const first = new Map<string, number>();
  tools.forEach((tool, index) => {
    const group = tool.rateLimit?.group;
    if (group === undefined) return;
    const at = first.get(group);
    if (at === undefined) return void first.set(group, index);
    const { calls, perMs } = tools[at]!.rateLimit!;
    if (calls === tool.rateLimit!.calls && perMs === tool.rateLimit!.perMs) return;
    throw new ToolDefinitionError(
      `${where(source, index, tool.name)}: field 'rate_limit': group '${group}' makes at most ${calls} calls in ${perMs / 1000}s in tool #${at}, and its tools share that one quota: give each the same calls and per_secs`,
    );
  });
}
