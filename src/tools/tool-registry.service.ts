import {
  Inject,
  Injectable,
  Logger,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ClusterLink } from '../cluster/cluster-link.js';
import { CodeToolService } from '../code-tools/code-tool.service.js';
import { llmConfig, toolsConfig, type LlmConfig, type ToolsConfig } from '../config/app.config.js';
import { EngineMetrics } from '../metrics/engine-metrics.js';
import { FileWatch } from './file-watch.js';
import { McpToolExecutor } from './mcp/mcp-tool.executor.js';
import { PendingTries } from './pending-tools.js';
import { expandOpenApi } from './openapi/openapi-expand.js';
import { isSpecUrl } from './openapi/spec-source.js';
import { snapshotOf, type Tool, type ToolSnapshot } from './tool-definition.js';
import {
  checkDuplicates,
  ToolDefinitionError,
  validateToolDefinitions,
  where,
} from './tool-validation.js';

/**
 * The active tool set (seed §2): the file, read once at start-up (and again when it changes,
 * with LLM_TOOLS_FILE_WATCH_SECS), or an in-memory override installed by `POST /api/tools`. A
 * turn takes one snapshot at its start.
 */
@Injectable()
export class ToolRegistry implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(ToolRegistry.name);
  private current: ToolSnapshot = snapshotOf('none', []);
  /** The definitions the file gave last (what a watch compares and reads code files of). */
  private fromFile: ToolSnapshot = snapshotOf('none', []);
  private watch: FileWatch | undefined;
  /** Tries at the tools left pending (MCP servers, OpenAPI documents down when the file was read). */
  private readonly pending: PendingTries;

  constructor(
    @Inject(toolsConfig.KEY) private readonly config: ToolsConfig,
    @Inject(llmConfig.KEY) private readonly llm: LlmConfig,
    private readonly code: CodeToolService,
    private readonly sync: ClusterLink,
    private readonly metrics: EngineMetrics,
    private readonly mcp: McpToolExecutor,
  ) {
    // At most once a second: a cool-down of 0 must not spin.
    const delayMs = Math.max(config.breakerCooldownSecs, 1) * 1000;
    this.pending = new PendingTries(
      delayMs,
      (t, only) => this.completePending(t, only),
      this.logger,
    );
    sync.onInstall(async (definitions) => {
      await this.install(definitions, 'request body (accepted by another engine process)');
    });
  }

  /**
   * Reads and validates the tools file; a missing or invalid file stops start-up. With several
   * engine processes, a process started later takes the override the others have.
   */
  async onModuleInit(): Promise<void> {
    this.current = this.fromFile = await this.loadFile();
    this.tryPendingLater();
    const override = await this.sync.current();
    if (override !== null)
      await this.install(override, 'request body (accepted by another engine process)');
    if (this.config.enabled && this.config.file !== '' && this.config.fileWatchSecs > 0) {
      this.watch = new FileWatch(
        () => this.watchedFiles(),
        this.config.fileWatchSecs * 1000,
        () => this.reloadFile(),
      );
      await this.watch.start();
    }
  }

  onModuleDestroy(): void {
    this.watch?.stop();
    this.pending.stop();
  }

  /** Active tools not offered to the model yet: their MCP server or OpenAPI document was down. */
  pendingTools(): string[] {
    return this.active()
      .definitions.filter((t) => t.pending !== undefined)
      .map((t) => t.name);
  }

  /** Schedules the next try at the tools the active set left pending (see PendingTries). */
  private tryPendingLater(): void {
    this.pending.schedule(
      this.current,
      (snapshot) => this.current === snapshot,
      (next) => {
        if (this.fromFile === this.current) this.fromFile = next;
        this.current = next;
      },
    );
  }

  /** Makes ready what `only` holds of `tools`: MCP tools listed, OpenAPI documents read. */
  private async completePending(tools: Tool[], only: ReadonlySet<Tool>): Promise<void> {
    const label = 'tools file (tools pending)';
    await this.mcp.complete(tools, label, { defer: true, only });
    for (const tool of only) {
      if (tool.raw.type !== 'openapi') continue;
      const [fresh] = await this.validate([tool.raw], label, { deferUnreachable: true });
      Object.assign(tool, fresh, { pending: fresh!.pending });
    }
  }

  /** The tools file, the Python files its code tools name and the OpenAPI documents. */
  private watchedFiles(): string[] {
    const named = this.fromFile.definitions.flatMap((t) => {
      const file =
        t.raw.type === 'openapi' ? t.raw.spec : t.kind === 'http' ? undefined : t.raw.file;
      // A document at a URL is read again with the file, not watched.
      return typeof file === 'string' && !isSpecUrl(file) ? [resolve(this.baseDir(), file)] : [];
    });
    return [resolve(this.config.file), ...new Set(named)];
  }

  /**
   * The tools file changed: its definitions replace the file's from the next turn. An invalid
   * file changes nothing (the error names the file, tool and field); an override from
   * `/api/tools` stays in force until restart.
   */
  private async reloadFile(): Promise<void> {
    let snapshot: ToolSnapshot;
    try {
      snapshot = await this.loadFile();
    } catch (error) {
      this.metrics.toolsFileReload('invalid');
      this.logger.error(
        `tools file changed but cannot be used; the tools in use are kept: ${(error as Error).message}`,
      );
      return;
    }
    this.fromFile = snapshot;
    if (this.current.source === 'request') {
      this.metrics.toolsFileReload('kept_override');
      this.logger.warn(
        `tools file changed (${snapshot.definitions.length} definition(s)); not installed: the override from /api/tools stays in force until restart`,
      );
      return;
    }
    this.current = snapshot;
    this.tryPendingLater();
    this.metrics.toolsFileReload('installed');
    this.logger.log(
      `tools file changed: ${snapshot.definitions.length} definition(s) apply from the next turn`,
    );
  }

  get llmEnabled(): boolean {
    return this.llm.enabled;
  }

  /**
   * Tools are used at all: the LLM is on and tool calling is enabled. With LLM_TOOLS_ENABLED
   * unset, that is when the file is set (seed §2) or an admin has installed an override.
   */
  get enabled(): boolean {
    if (!this.llm.enabled) return false;
    return this.config.explicit ?? (this.config.enabled || this.current.source === 'request');
  }

  active(): ToolSnapshot {
    return this.enabled ? this.current : snapshotOf('none', []);
  }

  /**
   * Validates and installs an override (source `request`), in every engine process; throws
   * ToolDefinitionError and changes nothing.
   */
  async replace(
    definitions: unknown,
    source = 'request body',
    opts: { dryRun?: boolean } = {},
  ): Promise<ToolSnapshot> {
    // A dry run checks as an install would and answers the set it would make, changing nothing.
    if (opts.dryRun) return snapshotOf('request', await this.validate(definitions, source));
    const snapshot = await this.install(definitions, source);
    await this.sync.publish(definitions);
    return snapshot;
  }

  /** The active definition named `name`, if any. */
  find(name: string): Tool | undefined {
    return this.active().definitions.find((t) => t.name === name);
  }

  /** Adds one definition, or replaces the one of that name in its place; an override as `replace`. */
  async upsert(
    name: string,
    definition: unknown,
    opts: { dryRun?: boolean } = {},
  ): Promise<ToolSnapshot> {
    const list: unknown[] = this.current.definitions.map((t) =>
      t.name === name ? definition : t.raw,
    );
    if (!this.current.definitions.some((t) => t.name === name)) list.push(definition);
    return this.replace(list, `PUT /api/tools/${name}`, opts);
  }

  /** Removes the definition named `name`; undefined (nothing changed) when there is none. */
  async remove(name: string): Promise<ToolSnapshot | undefined> {
    const rest = this.current.definitions.filter((t) => t.name !== name);
    if (rest.length === this.current.definitions.length) return undefined;
    return this.replace(
      rest.map((t) => t.raw),
      `DELETE /api/tools/${name}`,
    );
  }

  private async install(definitions: unknown, source: string): Promise<ToolSnapshot> {
    const tools = await this.validate(definitions, source);
    this.current = snapshotOf('request', tools);
    this.logger.log(
      `installed ${tools.length} definition(s) from ${source}; they apply from the next turn`,
    );
    if (!this.enabled)
      this.logger.warn(
        'tool calling is disabled (LLM_TOOLS_ENABLED=false): the override is kept but unused',
      );
    return this.active();
  }

  private baseDir(): string {
    return this.config.file ? dirname(resolve(this.config.file)) : process.cwd();
  }

  private async validate(
    definitions: unknown,
    source: string,
    opts: { deferUnreachable?: boolean } = {},
  ): Promise<Tool[]> {
    // OpenAPI entries become the HTTP tools their operations make; `raw` stays the entry.
    const expanded = await expandOpenApi(definitions, source, {
      baseDir: this.baseDir(),
      timeoutMs: this.config.timeoutSecs * 1000,
      defer: opts.deferUnreachable,
    });
    const { tools, warnings } = validateToolDefinitions(expanded.definitions, source, {
      baseDir: this.baseDir(),
      env: process.env,
    });
    for (const [index, entry] of expanded.origins) tools[index]!.raw = entry;
    for (const [index, why] of expanded.pending) {
      tools[index]!.pending = why;
      this.logger.warn(
        `${where(source, index, tools[index]!.name)}: not offered to the model until a later try succeeds: ${why}`,
      );
    }
    [...expanded.warnings, ...warnings].forEach((w) => this.logger.warn(w));
    await this.analyzeCode(tools, source);
    await this.mcp.complete(tools, source, { defer: opts.deferUnreachable });
    return tools;
  }

  /** Code tools: the function's name, docstring and signature give name, description and schema. */
  private async analyzeCode(tools: Tool[], source: string): Promise<void> {
    for (const [index, tool] of tools.entries()) {
      if (tool.kind === 'http' || tool.kind === 'mcp') continue;
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

  private async loadFile(): Promise<ToolSnapshot> {
    if (!this.config.enabled || this.config.file === '') return snapshotOf('none', []);
    const path = resolve(this.config.file);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      throw new ToolDefinitionError(
        `Cannot read tools file ${path} (LLM_TOOLS_FILE): ${(error as Error).message}`,
      );
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new ToolDefinitionError(`${path}: not valid JSON: ${(error as Error).message}`);
    }
    // An MCP server that is down leaves its tools pending, not the engine unstarted.
    const tools = await this.validate(parsed, path, { deferUnreachable: true });
    this.logger.log(`loaded ${tools.length} definition(s) from ${path}`);
    return snapshotOf('file', tools);
  }
}
