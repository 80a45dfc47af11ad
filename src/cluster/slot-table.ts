/**
 * The primary's record of tools' slots (`max_concurrency` across the engine's processes): for
 * each limit, the requests holding a slot and those waiting, first come first served. A process
 * that exits gives its slots back and its waiting requests up. Pure: no Nest import.
 */
interface Request {
  id: string;
  owner: number;
  key: string;
  max: number;
}

export class SlotTable {
  /** By limit: the ids holding a slot. */
  private readonly held = new Map<string, Set<string>>();
  /** By limit: the requests waiting, oldest first. */
  private readonly waiting = new Map<string, Request[]>();
  private readonly requests = new Map<string, Request>();

  /** `grant` tells process `owner` that request `id` holds a slot. */
  constructor(private readonly grant: (owner: number, id: string) => void) {}

  /** Request `id` of process `owner` for one of `max` slots of `key`: granted now or in its turn. */
  acquire(owner: number, id: string, key: string, max: number): void {
    const request = { id, owner, key, max };
    this.requests.set(id, request);
    const held = this.heldOf(key);
    const queue = this.waiting.get(key) ?? [];
    if (held.size < max && queue.length === 0) return this.take(request);
    queue.push(request);
    this.waiting.set(key, queue);
  }

  /** Request `id` is done with its slot, or gave up waiting for one. */
  release(id: string): void {
    const request = this.requests.get(id);
    if (!request) return;
    this.requests.delete(id);
    const queue = this.waiting.get(request.key);
    const at = queue?.indexOf(request) ?? -1;
    if (at >= 0) queue!.splice(at, 1);
    this.held.get(request.key)?.delete(id);
    this.serve(request.key);
  }

  /** Process `owner` exited: its slots are free, its waiting requests gone. */
  dropOwner(owner: number): void {
    for (const request of [...this.requests.values()])
      if (request.owner === owner) this.release(request.id);
  }

  /** How many slots of `key` are held (tests, and nothing else). */
  holding(key: string): number {
    return this.held.get(key)?.size ?? 0;
  }

  private serve(key: string): void {
    const queue = this.waiting.get(key) ?? [];
    while (queue.length > 0 && this.heldOf(key).size < queue[0]!.max) this.take(queue.shift()!);
    if (queue.length === 0) this.waiting.delete(key);
    if (this.held.get(key)?.size === 0) this.held.delete(key);
  }

  private heldOf(key: string): Set<string> {
    let held = this.held.get(key);
    if (!held) this.held.set(key, (held = new Set()));
    return held;
  }

  private take(request: Request): void {
    this.heldOf(request.key).add(request.id);
    this.grant(request.owner, request.id);
  }
}
