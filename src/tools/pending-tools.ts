/** Tools a set left pending (MCP servers, OpenAPI documents down when the tools were read), tried again. */
import { snapshotOf, type Tool, type ToolSnapshot, type ToolSource } from './tool-definition.js';

/** Makes ready what `only` holds of `tools` (a set from `source`), or leaves it pending. */
export type CompletePending = (
  tools: Tool[],
  only: ReadonlySet<Tool>,
  source: ToolSource,
) => Promise<void>;

export interface PendingOutcome {
  /** The same set, the tools made ready this time no longer pending. */
  snapshot: ToolSnapshot;
  offered: string[];
  /** A server or document answered but the definition cannot be completed (it lacks the tool, …). */
  error?: string;
}

/**
 * Copies of `snapshot`'s pending tools (or of those `select` picks) go through `complete` (which
 * clears `pending` on those it makes ready, and leaves or makes the others pending); the
 * snapshot itself, in use by turns, is not changed.
 */
export async function listPending(
  snapshot: ToolSnapshot,
  complete: CompletePending,
  select: (tool: Tool) => boolean = (t) => t.pending !== undefined,
): Promise<PendingOutcome> {
  const retried = new Set<Tool>();
  const definitions = snapshot.definitions.map((t) => {
    if (!select(t)) return t;
    const copy = { ...t };
    retried.add(copy);
    return copy;
  });
  let error: string | undefined;
  try {
    await complete(definitions, retried, snapshot.source);
  } catch (e) {
    error = (e as Error).message;
  }
  // Those made ready, and those an entry for a server's tools became (see McpToolExecutor).
  const before = new Set(snapshot.definitions);
  const offered = definitions.filter((t) => !before.has(t) && t.pending === undefined);
  const names = offered.map((t) => t.name);
  return {
    snapshot: snapshotOf(snapshot.source, definitions, snapshot.warnings),
    offered: names,
    ...(error && { error }),
  };
}

/**
 * Tries again, every `delayMs`, to make the tools a set left pending (MCP servers or OpenAPI
 * documents that could not be reached when the tools file was read); what a try makes ready is
 * offered from the next turn. A set replaced meanwhile has its own tries.
 */
export class PendingTries {
  private timer: NodeJS.Timeout | undefined;
  /** The last try's error: the same error again, try after try, is logged once. */
  private lastError: string | undefined;

  constructor(
    private readonly delayMs: number,
    private readonly complete: CompletePending,
    private readonly logger: { log(message: string): void; error(message: string): void },
  ) {}

  /**
   * Schedules a try for `snapshot`'s pending tools, if any; `install(next)` replaces it when it is
   * still the active set (`isActive`), and schedules the next try.
   */
  schedule(
    snapshot: ToolSnapshot,
    isActive: (snapshot: ToolSnapshot) => boolean,
    install: (next: ToolSnapshot) => void,
  ): void {
    this.stop();
    if (!snapshot.definitions.some((t) => t.pending !== undefined)) return;
    this.timer = setTimeout(() => {
      void listPending(snapshot, this.complete).then((next) => {
        if (!isActive(snapshot)) return;
        if (next.error && next.error !== this.lastError) this.logger.error(next.error);
        this.lastError = next.error;
        if (next.offered.length > 0)
          this.logger.log(`tool(s) ${next.offered.join(', ')} ready: offered from the next turn`);
        install(next.snapshot);
        this.schedule(next.snapshot, isActive, install);
      });
    }, this.delayMs);
    this.timer.unref();
  }

  stop(): void {
    clearTimeout(this.timer);
  }
}
