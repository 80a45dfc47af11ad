/**
 * The set in use completed again from an MCP server's list, when the server said its tools
 * changed, a session with it was opened again after one broke, or a watch found its list read
 * otherwise (LLM_TOOLS_MCP_LIST_WATCH_SECS). Pure but for the loader and logger it is given.
 */
import type { LoggerService } from '@nestjs/common';
import { relistedNames } from './mcp/mcp-listing.js';
import { serverLabel, targetOf } from './mcp/mcp-target.js';
import { listPending } from './pending-tools.js';
import type { ToolSnapshot } from './tool-definition.js';
import type { ToolLoader } from './tool-loader.service.js';

/** What relisting asks of the registry. */
export interface RelistHost {
  /** The set in use. */
  current(): ToolSnapshot;
  /** Installs `next`, the set in use listed again, from the next turn. */
  advance(next: ToolSnapshot): void;
}

export class McpRelists {
  /** The relistings being applied, in turn. */
  private queue = Promise.resolve();

  constructor(
    private readonly host: RelistHost,
    private readonly loader: Pick<ToolLoader, 'relist' | 'listedBy'>,
    private readonly logger: LoggerService,
  ) {}

  /**
   * Lists the server `key` names again, after the relistings before it: each lists the set the
   * one before installed.
   */
  readonly relist = (key: string): Promise<void> =>
    (this.queue = this.queue
      .then(() => this.relistNow(key))
      .catch((error: Error) => {
        this.logger.error(`an MCP server's new list: ${error.message}`);
      }));

  /**
   * The tools that take their description, schema or hints from the server's list are completed
   * again, and offered so from the next turn; one it no longer lists is left pending (not
   * offered) and tried again like a server that was down. A list that reads as before changes
   * nothing.
   */
  private async relistNow(key: string): Promise<void> {
    const snapshot = this.host.current();
    const source = snapshot.source;
    const next = await listPending(
      snapshot,
      (tools, only) => this.loader.relist(tools, only, source),
      (tool) => this.loader.listedBy(tool, key),
    );
    if (this.host.current() !== snapshot) return; // replaced meanwhile: the new set was listed anew
    if (next.error) this.logger.error(next.error);
    const relisted = relistedNames(snapshot.definitions, next.snapshot.definitions);
    if (relisted.length === 0) return;
    this.host.advance(next.snapshot);
    const one = snapshot.definitions.find((t) => this.loader.listedBy(t, key));
    const target = one && targetOf(one);
    const server = target && !('error' in target) ? ` ${serverLabel(target)}` : '';
    this.logger.log(
      `the tools of the MCP server${server} changed: ${relisted.join(', ')} as it lists them now, from the next turn`,
    );
  }
}
