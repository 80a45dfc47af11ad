/** MCP tools left pending (their servers down when the tools were read), tried again. Pure. */
import { snapshotOf, type Tool, type ToolSnapshot } from '../tool-definition.js';

export interface PendingOutcome {
  /** The same set, the tools listed this time no longer pending. */
  snapshot: ToolSnapshot;
  offered: string[];
  /** A server answered but the definition cannot be completed (it lacks the tool, …). */
  error?: string;
}

/**
 * Copies of `snapshot`'s pending tools go through `complete` (which clears `pending` on those it
 * lists, and leaves the others pending); the snapshot itself, in use by turns, is not changed.
 */
export async function listPending(
  snapshot: ToolSnapshot,
  complete: (tools: Tool[], only: ReadonlySet<Tool>) => Promise<void>,
): Promise<PendingOutcome> {
  const retried = new Set<Tool>();
  const definitions = snapshot.definitions.map((t) => {
    if (t.pending === undefined) return t;
    const copy = { ...t };
    retried.add(copy);
    return copy;
  });
  let error: string | undefined;
  try {
    await complete(definitions, retried);
  } catch (e) {
    error = (e as Error).message;
  }
  const offered = [...retried].filter((t) => t.pending === undefined).map((t) => t.name);
  return { snapshot: snapshotOf(snapshot.source, definitions), offered, ...(error && { error }) };
}
