import { Inject, Injectable, Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { sessionsConfig, type SessionsConfig } from '../config/app.config.js';
import { SessionStore } from '../sessions/session-store.js';
import type { Session } from './session.js';
import { sessionState } from './session-tools.js';
import { answered, withoutReasoning } from './history.js';
import { readStored, type StoredSession } from './stored-session.js';
import { settingsKept } from './resumed-settings.js';
import type { SettingsLimits } from './settings-update.js';

/** The store never sees a token itself, only its hash. */
export const keyOf = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * Keeps sessions in the session store so that a client can resume one on a new connection (after
 * a network drop, or when a draining engine closed it with 1001): its history, its settings and
 * its code-tool state. A store that fails never fails a turn: the session just starts afresh.
 */
@Injectable()
export class SessionKeeper {
  private readonly logger = new Logger(SessionKeeper.name);
  /** Each session's saves run one after another, so that an older one never lands last. */
  private readonly saving = new WeakMap<Session, Promise<unknown>>();
  /** Sessions closed for good (DELETE /api/sessions/{id}): never saved again. */
  private readonly forgotten = new WeakSet<Session>();

  constructor(
    private readonly store: SessionStore,
    @Inject(sessionsConfig.KEY) private readonly config: Pick<SessionsConfig, 'resumeSecs'>,
  ) {}

  get enabled(): boolean {
    return this.config.resumeSecs > 0;
  }

  /**
   * Makes `session` the stored session of `token`; false when there is none (or no store). Its
   * settings this engine would refuse now (`limits`) are the session's defaults again.
   */
  async resume(session: Session, token: string, limits: SettingsLimits): Promise<boolean> {
    if (!this.enabled) return false;
    let data: string | undefined;
    try {
      data = await this.store.claim({
        key: keyOf(token),
        owner: session.owner,
        ttlSecs: this.config.resumeSecs,
      });
    } catch (error) {
      this.logger.warn(`session store unavailable, starting afresh: ${(error as Error).message}`);
      return false;
    }
    if (data === undefined) return false;
    const read = readStored(data);
    if ('why' in read) {
      // Another version's record, or damage: going on from it would fail every later turn.
      this.logger.warn(`saved session not resumed, starting afresh: ${read.why}`);
      return false;
    }
    const { stored } = read;
    session.id = stored.id;
    if (typeof stored.started === 'number') session.startedAt = stored.started;
    session.resumeToken = token;
    session.history = stored.history;
    const saved = { ...session.settings, ...stored.settings };
    const { settings, dropped } = settingsKept(saved, session.settings, limits);
    session.settings = settings;
    if (dropped.length > 0)
      this.logger.warn(
        `resumed session's settings taken back to their defaults (session_id=${stored.id}): ${dropped.join('; ')}`,
      );
    session.usage = stored.usage;
    session.machine = stored.machine;
    session.agent = stored.agent;
    session.memory.summary = typeof stored.summary === 'string' ? stored.summary : '';
    session.turnsDropped = typeof stored.turnsDropped === 'number' ? stored.turnsDropped : 0;
    session.toolCalls.clear();
    for (const [name, count] of Object.entries(stored.toolCalls ?? {}))
      if (typeof count === 'number') session.toolCalls.set(name, count);
    session.placed = stored.placed === true;
    session.startCalled = stored.startCalled === true;
    sessionState(session).value = stored.state ?? {};
    return true;
  }

  /**
   * Saves the session mid-connection (after a turn, a settings change) where other processes read
   * the store: Redis (other replicas, or after a crash), the primary of ENGINE_PROCESSES. A store
   * in the process is read only once the connection has closed, which always saves (and a resume
   * in the process waits for that save), so there it would be wasted work.
   */
  checkpoint(session: Session): Promise<SaveOutcome> {
    return this.store.shared ? this.save(session) : Promise.resolve('skipped');
  }

  /**
   * The session can no longer be resumed: what was saved of it is deleted once its saves under
   * way are done, and it is saved no more.
   */
  async forget(session: Session): Promise<void> {
    this.forgotten.add(session);
    if (!this.enabled) return;
    await (this.saving.get(session) ?? Promise.resolve());
    try {
      await this.store.forget({ key: keyOf(session.resumeToken), owner: session.owner });
    } catch (error) {
      this.logger.warn(
        `session not forgotten (session_id=${session.id}): ${(error as Error).message}`,
      );
    }
  }

  /** Whether a client may still resume `session` once its connection has closed. */
  resumable(session: Session): boolean {
    return this.enabled && !this.forgotten.has(session);
  }

  /**
   * Saves the session as it is now (queued behind its earlier saves): `refused` when another
   * connection owns it now (it was resumed there), `failed` when the store could not be reached.
   */
  save(session: Session): Promise<SaveOutcome> {
    if (!this.enabled || this.forgotten.has(session)) return Promise.resolve('skipped');
    const next = (this.saving.get(session) ?? Promise.resolve()).then(() => this.write(session));
    this.saving.set(session, next);
    return next;
  }

  private async write(session: Session): Promise<SaveOutcome> {
    const stored: StoredSession = {
      v: 1,
      id: session.id,
      started: session.startedAt,
      // Saved mid-turn (a settings change, a takeover's check): calls still running as cancelled,
      // and without the reasoning sent back within the turn (its next request is a new turn's).
      history: withoutReasoning(answered(session.history)),
      settings: session.settings,
      state: sessionState(session).value,
      ...(session.usage && { usage: session.usage }),
      ...(session.machine && { machine: session.machine }),
      ...(session.placed && { placed: true as const }),
      ...(session.agent && { agent: session.agent }),
      ...(session.memory.summary && { summary: session.memory.summary }),
      ...(session.turnsDropped > 0 && { turnsDropped: session.turnsDropped }),
      ...(session.toolCalls.size > 0 && { toolCalls: Object.fromEntries(session.toolCalls) }),
      ...(session.startCalled && { startCalled: true as const }),
    };
    try {
      const saved = await this.store.save({
        key: keyOf(session.resumeToken),
        owner: session.owner,
        data: JSON.stringify(stored),
        ttlSecs: this.config.resumeSecs,
      });
      if (saved) return 'saved';
      this.logger.log(
        `session resumed on another connection: not saved from this one (session_id=${session.id})`,
      );
      return 'refused';
    } catch (error) {
      this.logger.warn(`session not saved (session_id=${session.id}): ${(error as Error).message}`);
      return 'failed';
    }
  }
}

export type SaveOutcome = 'saved' | 'refused' | 'failed' | 'skipped';
