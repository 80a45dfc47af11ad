/** Messages between the primary and the engine processes (node:cluster IPC). */
export type ClusterMessage =
  /**
   * Worker → primary: install these definitions everywhere; answered by `tools.published`. With
   * `basedOn`, only if the override in force is still the one of that version ('' for none; see
   * tool-set-version.ts): else answered `conflict` with the override in force (null for none).
   */
  | { kind: 'engine.tools.publish'; id: number; definitions: unknown; basedOn?: string }
  | { kind: 'engine.tools.published'; id: number; conflict?: true; definitions?: unknown }
  /** Primary → worker: install definitions another process accepted; answered by `tools.applied`. */
  | { kind: 'engine.tools.apply'; id: number; definitions: unknown }
  | { kind: 'engine.tools.applied'; id: number; error?: string }
  /** Worker → primary at start-up: the override in force, if any (`definitions: null` if none). */
  | { kind: 'engine.tools.current'; id: number; definitions?: unknown }
  /** Worker → primary: the metrics of all processes, for `GET /metrics`. */
  | { kind: 'engine.metrics.request'; id: number }
  | { kind: 'engine.metrics.reply'; id: number; text?: string; error?: string }
  /** Worker → primary: a sessions operation on every process; answered by `sessions.reply`. */
  | {
      kind: 'engine.sessions.request';
      id: number;
      op: SessionsOp;
      session?: string;
      data?: unknown;
    }
  | { kind: 'engine.sessions.reply'; id: number; results: unknown[] }
  /** Primary → worker: the operation on its own sessions; answered by `sessions.answer`. */
  | { kind: 'engine.sessions.ask'; id: number; op: SessionsOp; session?: string; data?: unknown }
  | { kind: 'engine.sessions.answer'; id: number; result: unknown }
  /** Worker → primary → every other worker: a tool's circuit opened or closed (see circuit-news.ts). */
  | { kind: 'engine.circuits.news'; news: unknown }
  /** Worker → primary: request `id` for one of `max` slots of a tool's limit (see slot-table.ts). */
  | { kind: 'engine.slots.acquire'; id: string; key: string; max: number }
  /** Primary → worker: request `id` holds a slot. */
  | { kind: 'engine.slots.granted'; id: string }
  /** Worker → primary: request `id` is done with its slot, or gave up waiting. */
  | { kind: 'engine.slots.release'; id: string }
  /** Worker → primary: the next moment for a call of a tool's `rate_limit` (see rate-table.ts). */
  | {
      kind: 'engine.rates.reserve';
      id: number;
      key: string;
      calls: number;
      perMs: number;
      maxWaitMs: number;
    }
  /** Primary → worker: how long the call waits (ms), or null: longer than it may (none reserved). */
  | { kind: 'engine.rates.reserved'; id: number; waitMs: number | null }
  /**
   * Worker → primary: the entry of `key` the primary keeps on `shelf` (see memory-shelf.ts) for all
   * the processes: OAuth 2.0 tokens (encrypted), `cache_secs` results, background results. Answered by `shelf.got`
   * (`ms`: how much longer it is kept).
   */
  | { kind: 'engine.shelf.get'; id: number; shelf: ShelfName; key: string }
  | { kind: 'engine.shelf.got'; id: number; value: string | null; ms: number }
  /** Worker → primary: keeps `value` under `key` on `shelf` for `ms`. */
  | { kind: 'engine.shelf.set'; shelf: ShelfName; key: string; value: string; ms: number }
  /** Worker → primary: drops the token under `key` if it is still the one of `digest`. */
  | { kind: 'engine.shelf.drop'; shelf: ShelfName; key: string; digest: string }
  /** Worker → primary: appends `value` to the JSON array under `key` on `shelf`, kept `ms` from now. */
  | { kind: 'engine.shelf.append'; shelf: ShelfName; key: string; value: string; ms: number }
  /** Worker → primary: the entry of `key`, taken off `shelf`; answered by `shelf.got`. */
  | { kind: 'engine.shelf.take'; id: number; shelf: ShelfName; key: string }
  /** Worker → primary → every worker (the sender too): `message` on `channel`. */
  | { kind: 'engine.broadcast'; channel: string; message: string }
  | { kind: 'engine.store.request'; id: number; request: StoreRequest }
  | { kind: 'engine.store.reply'; id: number; data?: string | null; ok?: boolean };

/**
 * Worker → primary: an operation on the sessions the primary keeps for every process (without
 * Redis; see cluster-session-store.ts). Answered by `store.reply`: the record claimed (`data`,
 * null for none), a save done or refused (`ok`).
 */
export type StoreRequest =
  | { op: 'claim'; key: string; owner: string; ttlSecs: number }
  | { op: 'save'; key: string; owner: string; ttlSecs: number; data: string }
  | { op: 'forget'; key: string; owner: string };

/** What the primary keeps for the processes: OAuth 2.0 tokens, `cache_secs` results, background results. */
export type ShelfName = 'tokens' | 'results' | 'background';

/**
 * What `/api/sessions` does: list the open sessions, read one, close one; what a placed call's
 * answering-machine detection says of one: a machine (`machine`) or a fax (`fax`) answered; and
 * what a resume asks first (`release`, of a resume token's hash): the connections still holding
 * that session are closed as taken over, each once its turn is saved; an administrator's note
 * (`note`, its `data` the text and whether to respond).
 */
export const SESSIONS_OPS = [
  'list',
  'read',
  'close',
  'machine',
  'fax',
  'release',
  'note',
  'agent',
] as const;
export type SessionsOp = (typeof SESSIONS_OPS)[number];

export const isSessionsOp = (value: unknown): value is SessionsOp =>
  (SESSIONS_OPS as readonly unknown[]).includes(value);

export function isClusterMessage(value: unknown): value is ClusterMessage {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { kind?: unknown }).kind === 'string' &&
    (value as { kind: string }).kind.startsWith('engine.')
  );
}
