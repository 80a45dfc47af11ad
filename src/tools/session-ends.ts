/**
 * When a session is gone from this engine process, for what its tools hold on its behalf (an MCP
 * tool's `per_session` connection). A session whose connection closed may still be resumed for
 * a while (SESSION_RESUME_SECS): it is gone once that time has passed without its return here,
 * at once when it cannot be resumed. Pure: no Nest import.
 */
import { Subject } from 'rxjs';

export class SessionEnds {
  /** The id of each session gone from this process. */
  readonly ended$ = new Subject<string>();
  private readonly waiting = new Map<string, NodeJS.Timeout>();
  /** Sessions open here, or closed and still resumable here. */
  private readonly live = new Set<string>();

  /** A connection opened the session `id` (new, or resumed: it is not gone after all). */
  opened(id: string): void {
    clearTimeout(this.waiting.get(id));
    this.waiting.delete(id);
    this.live.add(id);
  }

  /** The connection of session `id` closed; it may come back within `resumableMs` (0: never). */
  closed(id: string, resumableMs: number): void {
    this.opened(id);
    if (resumableMs <= 0) return this.end(id);
    const timer = setTimeout(() => {
      this.waiting.delete(id);
      this.end(id);
    }, resumableMs);
    timer.unref();
    this.waiting.set(id, timer);
  }

  /**
   * Whether session `id` is open here or may still come back: a call made for it after it has
   * gone (a background code tool's, late) has nothing of the session's to go on with.
   */
  isLive(id: string): boolean {
    return this.live.has(id);
  }

  private end(id: string): void {
    this.live.delete(id);
    this.ended$.next(id);
  }

  /** Sessions closed and still resumable here. */
  get resumable(): number {
    return this.waiting.size;
  }

  /** The engine stops (Nest calls it): what the sessions' tools hold is closed with the engine. */
  onModuleDestroy(): void {
    for (const timer of this.waiting.values()) clearTimeout(timer);
    this.waiting.clear();
    this.live.clear();
  }
}
