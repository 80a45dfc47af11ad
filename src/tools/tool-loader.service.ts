import { Inject, Injectable, Logger } from '@nestjs/common';
import { readToolsFile } from './tools-file-text.js';
import { inFiles, isDirectory, joinFiles, toolsFilesIn } from './tools-dir.js';
import { toolsBaseDir, watchedFiles } from './watched-files.js';
import { refreshToolSecrets } from '../config/secret-files.js';
import type { Observable } from 'rxjs';
import { resolve } from 'node:path';
import { CodeToolService } from '../code-tools/code-tool.service.js';
import { toolsConfig, type ToolsConfig } from '../config/app.config.js';
import type { ListRead } from './mcp/mcp-list-watch.js';
import { McpToolExecutor } from './mcp/mcp-tool.executor.js';
import { expandOpenApi } from './openapi/openapi-expand.js';
import {
  fetchSpec,
  isSpecUrl,
  type SpecRead,
  type SpecValidators,
  type SpecVersion,
} from './openapi/spec-source.js';
import { snapshotOf, type Tool, type ToolSnapshot, type ToolSource } from './tool-definition.js';
import { atEntries } from './openapi/openapi-spread.js';
import type { ValidateOptions } from './validate-options.js';
import { offeredSizeWarning } from './offered-size.js';
import {
  checkDuplicates,
  refuseDeepFields,
  ToolDefinitionError,
  validateToolDefinitions,
  where,
} from './tool-validation.js';

export { namingTheSetting, type ValidateOptions } from './validate-options.js';

/**
 * Reads tool definitions into tools: the tools file, or a set given over `/api/tools`, validated
 * and completed from what they name (Python code, MCP servers, OpenAPI documents).
 */
@Injectable()
export class ToolLoader {
  private readonly logger = new Logger(ToolLoader.name);

  constructor(
    @Inject(toolsConfig.KEY) private readonly config: ToolsConfig,
    private readonly code: CodeToolService,
    private readonly mcp: McpToolExecutor,
  ) {}

  /**
   * Makes ready what `only` holds of `tools` (a set from `source`): MCP tools listed, OpenAPI
   * documents read. Messages name the set and each tool's place in it.
   */
  async completePending(tools: Tool[], only: ReadonlySet<Tool>, source: ToolSource): Promise<void> {
    const label = this.label(source);
    await this.mcp.complete(tools, label, { defer: true, only });
    for (const tool of tools.filter((t) => only.has(t) && t.raw.type === 'openapi')) {
      const index = tools.indexOf(tool);
      const others = tools.flatMap((t) => (t === tool ? [] : [t.raw]));
      const fresh = await this.validate([tool.raw], label, {
        deferUnreachable: true,
        index,
        others,
      });
      // An entry for several operations becomes them, at its place, once its document is read.
      if (tool.openapiGroup) tools.splice(index, 1, ...fresh);
      else Object.assign(tool, fresh[0], { pending: fresh[0]!.pending });
    }
  }

  /** A server with a session open said its tools changed: the key of its URL and headers. */
  get mcpToolsChanged$(): Observable<string> {
    return this.mcp.toolsChanged$;
  }

  /** The MCP servers `snapshot`'s tools take what they offer from, each with a read of its list. */
  mcpListings(snapshot: ToolSnapshot): Map<string, ListRead> {
    return this.mcp.listings(snapshot.definitions);
  }

  /** Stops the MCP servers run as commands that `snapshot` does not run (see McpToolExecutor). */
  releaseServers(snapshot: ToolSnapshot): void {
    this.mcp.releaseServers(snapshot.definitions);
  }

  /** The tool takes what it offers from the list of the MCP server `key` names. */
  listedBy(tool: Tool, key: string): boolean {
    return this.mcp.listedBy(tool, key);
  }

  /** `only`'s MCP tools completed again from their server's new list (gone from it: pending). */
  async relist(tools: Tool[], only: ReadonlySet<Tool>, source: ToolSource): Promise<void> {
    await this.mcp.complete(tools, this.label(source), { defer: true, only, relisted: true });
  }

  private label(source: ToolSource): string {
    return source === 'file' ? resolve(this.config.file) : 'tools set in use';
  }

  /**
   * The OpenAPI documents at URLs that `snapshot`'s definitions name, each with the version its
   * tools were made from (none while they are pending).
   */
  specUrls(snapshot: ToolSnapshot): Map<string, SpecVersion | undefined> {
    const urls = new Map<string, SpecVersion | undefined>();
    for (const t of snapshot.definitions)
      if (t.raw.type === 'openapi' && typeof t.raw.spec === 'string' && isSpecUrl(t.raw.spec))
        urls.set(t.raw.spec, urls.get(t.raw.spec) ?? t.specVersion);
    return urls;
  }

  /** A document at a URL, read as when the tools are loaded, unless still the one `seen` identifies. */
  specRead(url: string, seen?: SpecValidators): Promise<SpecRead> {
    return fetchSpec(url, this.config.timeoutSecs * 1000, seen);
  }

  /** The tools file, and the Python files and OpenAPI documents the definitions it gave name. */
  watchedFiles(fromFile: ToolSnapshot): string[] {
    return watchedFiles(fromFile, this.config.file);
  }

  /** Where relative paths of definitions start: the tools file's directory, or the directory itself. */
  private baseDir(): string {
    return toolsBaseDir(this.config.file);
  }

  /**
   * Validates definitions and makes what they leave out (code tools' analysis, MCP lists, OpenAPI
   * operations); throws ToolDefinitionError naming source, tool and field. With `deferUnreachable`,
   * a server or document that cannot be reached leaves its tools pending instead; `reloading`
   * (a reload of tools in use), a document served but unusable is still an error.
   */
  async validate(
    definitions: unknown,
    source: string,
    opts: ValidateOptions = {},
  ): Promise<Tool[]> {
    // `index`: the one definition given has that place in a larger set; messages say so.
    const placed = (message: string) =>
      opts.index === undefined
        ? message
        : message.replaceAll(`${source}: tool #0`, `${source}: tool #${opts.index}`);
    const at = (message: string) => (opts.relabel ?? String)(placed(message));
    try {
      refuseDeepFields(definitions, source);
      // OpenAPI entries become the HTTP tools their operations make; `raw` stays the entry.
      const expanded = await expandOpenApi(definitions, source, {
        baseDir: this.baseDir(),
        timeoutMs: this.config.timeoutSecs * 1000,
        defer: opts.deferUnreachable ? (opts.reloading ? 'unreachable' : 'unusable') : undefined,
        kept: opts.kept,
        others: opts.others,
      });
      const warn = (message: string) => {
        this.logger.warn(message);
        opts.warnings?.push(message);
      };
      expanded.warnings.forEach((w) => warn(at(w)));
      // What follows names the definitions' places after expansion: said of the entries' places.
      const { placeOf, groups } = expanded;
      const entryAt = (message: string) => at(atEntries(message, source, placeOf, groups));
      // Entries that make no tool at all: said with why, not as an empty set.
      if (isEmpty(expanded.definitions) && !isEmpty(definitions))
        throw new ToolDefinitionError(
          `${source}: its entries make no tool: ${expanded.warnings.map((w) => w.replace(`${source}: `, '')).join('; ') || 'each was left out'}`,
        );
      try {
        const { tools, warnings } = validateToolDefinitions(expanded.definitions, source, {
          baseDir: this.baseDir(),
          env: process.env,
          commands: opts.commands,
          inSet: opts.index !== undefined,
        });
        for (const [index, entry] of expanded.origins) tools[index]!.raw = entry;
        for (const [index, version] of expanded.versions) tools[index]!.specVersion = version;
        for (const [index, prefix] of expanded.groups)
          Object.assign(tools[index]!, { name: `${prefix}*`, openapiGroup: { prefix } });
        for (const [index, why] of expanded.pending) {
          tools[index]!.pending = why;
          const tool = where(source, placeOf[index]!, tools[index]!.name);
          this.logger.warn(
            at(`${tool}: not offered to the model until a later try succeeds: ${why}`),
          );
        }
        warnings.forEach((w) => warn(entryAt(w)));
        await this.analyzeCode(tools, source);
        const kept =
          opts.kept && new Set(placeOf.flatMap((p, i) => (opts.kept!.has(p) ? [i] : [])));
        // What the MCP servers' lists leave out is said with the set's other warnings; a tool's
        // wait for its server is logged only (the server's state, not the set's: see /health).
        const listed = (w: string, pending?: boolean) =>
          pending ? this.logger.warn(entryAt(w)) : warn(entryAt(w));
        await this.mcp.complete(tools, source, {
          defer: opts.deferUnreachable,
          kept,
          warn: listed,
        });
        // What only the whole set can say: how much of each request its tools take.
        const size = opts.index === undefined ? offeredSizeWarning(tools, source) : undefined;
        if (size) warn(at(size));
        return tools;
      } catch (error) {
        throw error instanceof ToolDefinitionError
          ? new ToolDefinitionError(atEntries(error.message, source, placeOf, groups))
          : error;
      }
    } catch (error) {
      throw error instanceof ToolDefinitionError
        ? new ToolDefinitionError(at(error.message))
        : error;
    }
  }

  /** Code tools: the function's name, docstring and signature give name, description and schema. */
  private async analyzeCode(tools: Tool[], source: string): Promise<void> {
    for (const [index, tool] of tools.entries()) {
      if (tool.kind !== 'python' && tool.kind !== 'callback') continue;
      const field = tool.raw.file !== undefined ? 'file' : 'code';
      const result = await this.code.analyze(
        tool.code,
        tool.raw.name ?? (tool.kind === 'callback' ? tool.name : undefined),
      );
      if (!result.ok)
        throw new ToolDefinitionError(
          `${where(source, index, tool.raw.name)}: field '${field}': ${result.error}`,
        );
      tool.name = result.name!;
      if (tool.raw.description === undefined) tool.description = result.description ?? '';
      if (tool.raw.parameters === undefined) tool.parameters = result.parameters ?? tool.parameters;
    }
    checkDuplicates(tools, source);
  }

  /**
   * The tools file's definitions, or those of every tools file of the directory it names; a
   * missing or invalid file throws ToolDefinitionError naming it.
   */
  async loadFile(opts: { reloading?: boolean } = {}): Promise<ToolSnapshot> {
    if (!this.config.enabled || this.config.file === '') return snapshotOf('none', []);
    const path = resolve(this.config.file);
    try {
      refreshToolSecrets(process.env);
    } catch (error) {
      throw new ToolDefinitionError((error as Error).message);
    }
    const dir = isDirectory(path);
    const files = dir ? toolsFilesIn(path) : [path];
    if (dir && files.length === 0)
      throw new ToolDefinitionError(
        `${path} (LLM_TOOLS_FILE): the directory holds no tools file (*.json, *.yaml, *.yml)`,
      );
    const read = [];
    for (const file of files) read.push({ file, definitions: await readToolsFile(file) });
    const { definitions, parts } = dir
      ? joinFiles(read)
      : { definitions: read[0]!.definitions, parts: [] };
    // An MCP server that is down leaves its tools pending, not the engine unstarted.
    // The tools file is the operator's: its MCP servers may be programs the engine runs.
    const warnings: string[] = [];
    const tools = await this.validate(definitions, path, {
      ...opts,
      warnings,
      deferUnreachable: true,
      commands: true,
      ...(dir && { relabel: (message: string) => inFiles(message, path, parts) }),
    });
    const from = dir ? `${files.length} file(s) in ${path}` : path;
    this.logger.log(`loaded ${tools.length} definition(s) from ${from}`);
    return snapshotOf('file', tools, warnings);
  }
}

/** An array of nothing (a set's definitions). */
const isEmpty = (value: unknown): boolean => Array.isArray(value) && value.length === 0;
