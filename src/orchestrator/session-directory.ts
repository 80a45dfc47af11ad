import { Injectable } from '@nestjs/common';
import type { Session } from './session.js';

/** An open session as the admin API sees it. */
export interface OpenSession {
  session: Session;
  /** When its connection opened (ms since the epoch). */
  openedAt: number;
  /** Closes its connection for good: the session cannot be resumed. */
  close: () => Promise<void>;
}

/**
 * The sessions open on this engine process, by their connection: what `/api/sessions` lists,
 * reads and closes. The gateway adds each connection's session and removes it as it closes.
 */
@Injectable()
export class SessionDirectory {
  private readonly open = new Map<Session, OpenSession>();

  add(entry: OpenSession): void {
    this.open.set(entry.session, entry);
  }

  remove(session: Session): void {
    this.open.delete(session);
  }

  list(): OpenSession[] {
    return [...this.open.values()];
  }

  /** The open session of id `id` (a resumed session keeps its id); undefined when none. */
  get(id: string): OpenSession | undefined {
    for (const entry of this.open.values()) if (entry.session.id === id) return entry;
    return undefined;
  }
}
