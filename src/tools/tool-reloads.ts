/**
 * The tool set read again while the engine runs: the tools file when it changed
 * (LLM_TOOLS_FILE_WATCH_SECS), and the set in use when an OpenAPI document it names reads
 * differently (LLM_TOOLS_SPEC_URL_WATCH_SECS), or an MCP server's list of tools does
 * (LLM_TOOLS_MCP_LIST_WATCH_SECS). Pure but for the loader, metrics and logger it is
 * given: no Nest import.
 */
import type { LoggerService } from '@nestjs/common';
import type { ToolsConfig } from '../config/app.config.js';
import type { EngineMetrics } from '../metrics/engine-metrics.js';
import { FileWatch } from './file-watch.js';
import { McpListWatch } from './mcp/mcp-list-watch.js';
import { SpecUrlWatch } from './openapi/spec-url-watch.js';
import type { ToolSnapshot } from './tool-definition.js';
import type { ToolLoader } from './tool-loader.service.js';
import { changesOf } from './tool-set-edit.js';

/** What the registry does for a reload. */
export interface ReloadHost {
  /** The set in use. */
  current(): ToolSnapshot;
  /** The set the file gave last. */
  fromFile(): ToolSnapshot;
  /** The file read again: `snapshot` is what it gives now; installed too when `use`. */
  fileRead(snapshot: ToolSnapshot, use: boolean): void;
  /** Validates the override `replacing` again and installs it, unless it was replaced meanwhile. */
  reinstall(raw: unknown[], source: string, replacing: ToolSnapshot): Promise<unknown>;
  /** The MCP server `key` names lists its tools otherwise: the tools from its list made anew. */
  relist(key: string): Promise<void>;
}

export class ToolReloads {
  private watch: FileWatch | undefined;
  private specWatch: SpecUrlWatch | undefined;
  private listWatch: McpListWatch | undefined;

  constructor(
    private readonly host: ReloadHost,
    private readonly config: ToolsConfig,
    private readonly loader: ToolLoader,
    private readonly metrics: EngineMetrics,
    private readonly logger: LoggerService,
  ) {}

  /** Starts the watches the configuration asks for. */
  async start(): Promise<void> {
    const { config } = this;
    if (config.enabled && config.file !== '' && config.fileWatchSecs > 0) {
      this.watch = new FileWatch(
        () => this.loader.watchedFiles(this.host.fromFile()),
        config.fileWatchSecs * 1000,
        () => this.reloadFile(),
      );
      await this.watch.start();
    }
    if (config.specUrlWatchSecs > 0) {
      this.specWatch = new SpecUrlWatch(
        () => this.loader.specUrls(this.host.current()),
        config.specUrlWatchSecs * 1000,
        (url, seen) => this.loader.specRead(url, seen),
        () => this.specChanged(),
      );
      await this.specWatch.start();
    }
    if (config.mcpListWatchSecs > 0) {
      this.listWatch = new McpListWatch(
        () => this.loader.mcpListings(this.host.current()),
        config.mcpListWatchSecs * 1000,
        {
          changed: this.host.relist,
          warn: (message) => {
            this.logger.warn(message);
          },
          read: (outcome) => this.metrics.toolSet.mcpListRead(outcome),
        },
      );
      await this.listWatch.start();
    }
  }

  stop(): void {
    this.watch?.stop();
    this.specWatch?.stop();
    this.listWatch?.stop();
  }

  /**
   * An OpenAPI document at a URL that the set in use names reads differently: the set is read
   * again, as an edit of the tools file is (an override from /api/tools is validated again).
   */
  private async specChanged(): Promise<void> {
    const snapshot = this.host.current();
    if (snapshot === this.host.fromFile() && snapshot.source === 'file')
      return this.reloadFile('an OpenAPI document changed');
    if (snapshot.source !== 'request') return;
    try {
      const raw = snapshot.definitions.map((t) => t.raw);
      const source = 'the override in use (an OpenAPI document changed)';
      await this.host.reinstall(raw, source, snapshot);
    } catch (error) {
      this.logger.error(
        `an OpenAPI document changed, but the tools cannot be used; the tools in use are kept: ${(error as Error).message}`,
      );
    }
  }

  /**
   * The tools file changed: its definitions replace the file's from the next turn. An invalid
   * file changes nothing (the error names the file, tool and field); an override from
   * `/api/tools` stays in force until restart.
   */
  private async reloadFile(why = 'tools file changed'): Promise<void> {
    try {
      await this.readFileAgain(why);
    } finally {
      // A command changed or dropped: its server stops (also one the failed read started).
      this.loader.releaseServers(this.host.current());
    }
  }

  private async readFileAgain(why: string): Promise<void> {
    let snapshot: ToolSnapshot;
    try {
      snapshot = await this.loader.loadFile({ reloading: true });
    } catch (error) {
      this.metrics.toolSet.fileReload('invalid');
      this.logger.error(
        `${why}, but the tools cannot be used; the tools in use are kept: ${(error as Error).message}`,
      );
      return;
    }
    const overridden = this.host.current().source === 'request';
    const changes = changesOf(this.host.fromFile().definitions, snapshot.definitions);
    this.host.fileRead(snapshot, !overridden);
    if (overridden) {
      this.metrics.toolSet.fileReload('kept_override');
      this.logger.warn(
        `${why} (${snapshot.definitions.length} definition(s): ${changes}); not installed: the override from /api/tools stays in force until restart`,
      );
      return;
    }
    this.metrics.toolSet.fileReload('installed');
    this.logger.log(
      `${why}: ${snapshot.definitions.length} definition(s) apply from the next turn (${changes})`,
    );
  }
}
