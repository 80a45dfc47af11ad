/**
 * Background calls' results across engine processes and replicas sharing a Redis
 * (SESSION_STORE_URL), or the processes of ENGINE_PROCESSES through their primary: a session
 * resumed in another process than the one that runs its calls gets their results there. Pure but
 * for the messages and lists it is given.
 */
import { messageObject } from '../common/message-object.js';
import { randomUUID } from 'node:crypto';
import type { Shelf } from '../cluster/shelf.js';
import type { Broadcast } from '../sessions/session-store.js';
import type { BackgroundResult } from './background-calls.js';

const CHANNEL = 'agent-engine:background';
const PREFIX = 'agent-engine:background:';

/** What the processes tell each other: a session was resumed; results wait for a session. */
export interface BackgroundNews {
  /**
   * Session `id` was resumed (`here`: by this process): whoever holds its parked calls hands them
   * over, and a connection of another process still holding it is closed.
   */
  resumed(id: string, here: boolean): void;
  /** Results of session `id` wait (Redis, the primary): the process where it is open takes them. */
  results(id: string): void;
}

function isResult(value: unknown): value is BackgroundResult {
  const r = value as Partial<BackgroundResult> | null;
  return (
    typeof r === 'object' &&
    r !== null &&
    typeof r.id === 'string' &&
    typeof r.name === 'string' &&
    typeof r.ok === 'boolean' &&
    typeof r.ms === 'number' &&
    typeof r.text === 'string'
  );
}

export class SharedBackground {
  /** Tells this process's news from the others'. */
  private readonly self = randomUUID();

  /** `ttlSecs`: how long results wait for their session (its resume window, SESSION_RESUME_SECS). */
  constructor(
    private readonly broadcast: Broadcast,
    private readonly shelf: Shelf,
    private readonly ttlSecs: number,
  ) {}

  /** Hands every process's news to `news` from now on. */
  listen(news: BackgroundNews): Promise<void> {
    return this.broadcast.subscribe(CHANNEL, (raw) => {
      const message = messageObject(raw);
      if (!message) return;
      if (typeof message.resumed === 'string')
        news.resumed(message.resumed, message.by === this.self);
      else if (typeof message.results === 'string') news.results(message.results);
    });
  }

  /** Tells every process that session `id` was resumed here. */
  resumed(id: string): Promise<void> {
    return this.broadcast.publish(CHANNEL, JSON.stringify({ resumed: id, by: this.self }));
  }

  /** Keeps `result` for session `id`, and tells every process it waits. */
  async put(id: string, result: BackgroundResult): Promise<void> {
    await this.shelf.append(PREFIX + id, JSON.stringify(result), this.ttlSecs * 1000);
    await this.broadcast.publish(CHANNEL, JSON.stringify({ results: id }));
  }

  /** The results waiting for session `id`, taken (no other process gets them). */
  async take(id: string): Promise<BackgroundResult[]> {
    const raw = await this.shelf.take(PREFIX + id);
    return raw.flatMap((item) => {
      try {
        const result: unknown = JSON.parse(item);
        return isResult(result) ? [result] : [];
      } catch {
        return [];
      }
    });
  }
}
