import {
  Inject,
  Injectable,
  Logger,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import { ClusterLink } from '../cluster/cluster-link.js';
import { llmConfig, toolsConfig, type LlmConfig, type ToolsConfig } from '../config/app.config.js';
import { EngineMetrics } from '../metrics/engine-metrics.js';
import { PendingTries } from './pending-tools.js';
import { commandKey } from './mcp/mcp-command.js';
import { McpRelists } from './mcp-relists.js';
import { snapshotOf, type Tool, type ToolSnapshot } from './tool-definition.js';
import { ReplicaTools } from './replica-tools.js';
import { namingTheSetting, ToolLoader, type ValidateOptions } from './tool-loader.service.js';
import { changesOf, withTool, withoutTool } from './tool-set-edit.js';
import { ToolSetChanges, type ChangeHost, type ChangeOptions } from './tool-set-changes.js';
import { OverrideRecord } from './override-record.js';
import { ToolReloads } from './tool-reloads.js';
import { overrideBase, overrideVersion, setVersion } from './tool-set-version.js';

const OTHER_PROCESS = 'request body (accepted by another engine process or replica)';

/**
 * The active tool set (seed §2): the file, read once at start-up (and again when it changes,
 * with LLM_TOOLS_FILE_WATCH_SECS), or an in-memory override installed by `POST /api/tools` (in
 * every engine process, and with Redis every replica). A turn takes one snapshot at its start.
 */
@Injectable()
export class ToolRegistry implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(ToolRegistry.name);
  private current: ToolSnapshot = snapshotOf('none', []);
  /** The definitions the file gave last (what a watch compares and reads code files of). */
  private fromFile: ToolSnapshot = snapshotOf('none', []);
  /** The file and OpenAPI documents read again when they change. */
  private readonly reloads: ToolReloads;
  /** Tries at the tools left pending (MCP servers, OpenAPI documents down when the file was read). */
  private readonly pending: PendingTries;
  /** The MCP servers' lists read again. */
  private readonly relists: McpRelists;
  /** The overrides other processes and replicas made, installed one after the other. */
  private installs: Promise<unknown> = Promise.resolve();
  /** Changes over the admin API. */
  private readonly changes: ToolSetChanges;

  constructor(
    @Inject(toolsConfig.KEY) private readonly config: ToolsConfig,
    @Inject(llmConfig.KEY) private readonly llm: LlmConfig,
    private readonly sync: ClusterLink,
    metrics: EngineMetrics,
    private readonly loader: ToolLoader,
    private readonly replicas: ReplicaTools,
  ) {
    // At most once a second: a cool-down of 0 must not spin.
    const delayMs = Math.max(config.breakerCooldownSecs, 1) * 1000;
    this.pending = new PendingTries(
      delayMs,
      (t, only, source) => this.loader.completePending(t, only, source),
      this.logger,
    );
    this.relists = new McpRelists(
      {
        current: () => this.current,
        advance: (next) => {
          this.advance(next);
          this.tryPendingLater();
        },
      },
      loader,
      this.logger,
    );
    loader.mcpToolsChanged$.subscribe((key) => void this.relists.relist(key));
    // With Redis, the override a sibling process made is read from it: the latest, never one the
    // primary passed on after a later one came from another replica.
    sync.onInstall(async (definitions) => {
      if (!(replicas.shared && (await this.installLatest()))) await this.installOther(definitions);
    });
    replicas.onOverride(this.installLatest);
    const host: ChangeHost = {
      current: () => this.current,
      active: () => this.active(),
      validate: (definitions, source, kept, warnings) =>
        this.validate(definitions, source, { kept, warnings }),
      drop: () => this.loader.releaseServers(this.current),
      commit: (tools, source, warnings) => this.commit(tools, source, warnings),
      adopt: async (later) => {
        if (overrideVersion(later) !== overrideBase(this.current)) await this.installFrom(later);
      },
      inTurn: this.inTurn,
      counted: (outcome) => metrics.toolSet.change(outcome),
    };
    this.changes = new ToolSetChanges(host, new OverrideRecord(replicas, sync));
    const reloading = { deferUnreachable: true, reloading: true };
    const files = {
      current: () => this.current,
      fromFile: () => this.fromFile,
      fileRead: (snapshot: ToolSnapshot, use: boolean) => {
        this.fromFile = snapshot;
        if (!use) return;
        this.current = snapshot;
        this.tryPendingLater();
      },
      reinstall: (raw: unknown[], source: string, replacing: ToolSnapshot) =>
        this.install(raw, source, { ...reloading, replacing }),
      relist: this.relists.relist,
    };
    this.reloads = new ToolReloads(files, config, loader, metrics, this.logger);
  }

  /**
   * Installs the override another engine process or replica made, in the order they come: the
   * primary and Redis send them in the order they were made, and a later one must not go first.
   */
  private readonly installOther = async (definitions: unknown): Promise<void> => {
    await this.inTurn(() => this.installFrom(definitions));
  };

  /** Installs at once another's override (what this process cannot reach is left pending). */
  private installFrom(definitions: unknown): Promise<ToolSnapshot> {
    return this.install(definitions, OTHER_PROCESS, { deferUnreachable: true });
  }

  /**
   * Installs, in turn, the override Redis holds now, read in that turn, unless this process holds
   * it already: the latest, never an earlier one over a later one. False when Redis holds none or
   * cannot be asked.
   */
  private readonly installLatest = (): Promise<boolean> =>
    this.inTurn(async () => {
      const found = await this.replicas.latest();
      if (found === undefined || found === 'held') return found === 'held';
      await this.installFrom(found.definitions);
      found.hold();
      return true;
    });

  /** Runs `step` after the installs and changes before it (see ChangeHost.inTurn). */
  private readonly inTurn = <T>(step: () => T | PromiseLike<T>): Promise<T> => {
    const done: Promise<T> = this.installs.then(step);
    this.installs = done.catch(() => undefined);
    return done;
  };

  /**
   * Reads and validates the tools file; a missing or invalid file stops start-up. With several
   * engine processes, a process started later takes the override the others have.
   */
  async onModuleInit(): Promise<void> {
    this.current = this.fromFile = await this.loader.loadFile().catch(namingTheSetting);
    this.tryPendingLater();
    const override = await this.sync.current();
    if (override !== null) await this.installOther(override);
    else await this.replicas.installCurrent(this.installOther);
    await this.reloads.start();
  }

  onModuleDestroy(): void {
    this.reloads.stop();
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
      (next) => this.advance(next),
    );
  }

  /** The set in use, made further (its pending tools tried, relisted): the file's if it was. */
  private advance(next: ToolSnapshot): void {
    if (this.fromFile === this.current) this.fromFile = next;
    this.current = next;
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

  /** The version of the set in force, kept while tools are disabled (the admin API's ETag). */
  version(): string {
    return setVersion(this.current);
  }

  /**
   * Validates and installs an override (source `request`), in every engine process and replica;
   * throws ToolDefinitionError, or ToolSetChanged when `ifMatch` (an If-Match header) no longer
   * holds, and changes nothing.
   */
  async replace(
    definitions: unknown,
    source = 'request body',
    opts: ChangeOptions = {},
  ): Promise<ToolSnapshot> {
    return (await this.changes.make(() => ({ definitions }), source, opts))!;
  }

  /** The active definition named `name`, if any. */
  find(name: string): Tool | undefined {
    return this.active().definitions.find((t) => t.name === name);
  }

  /**
   * Adds one definition, or replaces the one of that name in its place; an override as `replace`.
   * The others are kept as they are: one whose server or document is down stays pending.
   */
  async upsert(name: string, definition: unknown, opts: ChangeOptions = {}): Promise<ToolSnapshot> {
    const edit = (set: ToolSnapshot) => withTool(set.definitions, name, definition);
    const based = { ...opts, based: true };
    return (await this.changes.make(edit, `PUT /api/tools/${name}`, based))!;
  }

  /** Removes the definition named `name`; undefined (nothing changed) when there is none. */
  remove(name: string, opts: ChangeOptions = {}): Promise<ToolSnapshot | undefined> {
    const edit = (set: ToolSnapshot) => withoutTool(set.definitions, name);
    return this.changes.make(edit, `DELETE /api/tools/${name}`, { ...opts, based: true });
  }

  /** The MCP servers the tools file runs: a set over the API may keep them, not run others. */
  private fileCommands(): ReadonlySet<string> {
    return new Set(this.fromFile.definitions.flatMap((t) => (t.stdio ? [commandKey(t.raw)] : [])));
  }

  /**
   * With `deferUnreachable` (a set another process accepted), a server or document that this
   * process cannot reach now leaves its tools pending rather than the processes' sets apart;
   * `reloading`, `kept`: see ToolLoader.validate. With `replacing`, nothing is installed when that
   * set is no longer the one in use.
   */
  private async install(
    definitions: unknown,
    source: string,
    opts: ValidateOptions & { replacing?: ToolSnapshot } = {},
  ): Promise<ToolSnapshot> {
    const { replacing, ...validation } = opts;
    const warnings: string[] = [];
    const tools = await this.validate(definitions, source, { ...validation, warnings });
    // Read again to replace a set that another install has replaced meanwhile: that one stays.
    if (replacing && this.current !== replacing) return this.active();
    return this.commit(tools, source, warnings);
  }

  /** Validates `definitions`; a server run for a set refused, which the set in use does not run, stops. */
  private validate(definitions: unknown, source: string, opts: ValidateOptions): Promise<Tool[]> {
    return this.loader
      .validate(definitions, source, { commands: this.fileCommands(), ...opts })
      .catch((error: unknown) => {
        this.loader.releaseServers(this.current);
        throw error;
      });
  }

  /** Installs `tools` (an override) at once, from the next turn. */
  private commit(tools: Tool[], source: string, warnings: readonly string[]): ToolSnapshot {
    const changes = changesOf(this.current.definitions, tools);
    this.current = snapshotOf('request', tools, warnings);
    this.loader.releaseServers(this.current); // the servers run as commands that the set in use no longer runs stop
    this.tryPendingLater();
    this.logger.log(
      `installed ${tools.length} definition(s) from ${source} (${changes}); they apply from the next turn`,
    );
    if (!this.enabled)
      this.logger.warn(
        'tool calling is disabled (LLM_TOOLS_ENABLED=false): the override is kept but unused',
      );
    return this.active();
  }
}
