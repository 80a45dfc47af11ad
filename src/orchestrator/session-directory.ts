import { Inject, Injectable, Logger } from '@nestjs/common';
import { sessionsConfig, type SessionsConfig } from '../config/app.config.js';
import type { Session } from './session.js';
import type { Refusal } from './notes.js';
import { deliver, reportOf } from './session-webhook.js';
import { redactor, type Redact } from '../common/redaction.js';
import { EngineMetrics } from '../metrics/engine-metrics.js';
import { keyOf } from './session-keeper.service.js';
import { SessionEnds } from '../tools/session-ends.js';
import { Lifecycle } from '../lifecycle/lifecycle.service.js';

/** An open session as the admin API sees it. */
export interface OpenSession {
  session: Session;
  /** When its connection opened (ms since the epoch). */
  openedAt: number;
  /** Closes its connection for good: the session cannot be resumed. */
  close: () => Promise<void>;
  /** Closes its connection as taken over (4001), settling once its turn is saved. */
  release: () => Promise<void>;
  /** Its placed call was taken by a machine or a fax: false when it was placed without detection. */
  answeredBy: (kind: 'machine' | 'fax') => boolean;
  /** An administrator's note for the model (see notes.ts): why it was refused, or undefined. */
  note: (text: string, respond: boolean) => Promise<Refusal | undefined>;
  /** An administrator gives it to an assistant (null: the engine's own): why not, or undefined. */
  assign: (agent: string | null) => Promise<string | undefined>;
}

/**
 * The sessions open on this engine process, by their connection: what `/api/sessions` lists,
 * reads and closes. The gateway adds each connection's session and removes it as it closes.
 */
/**
 * How long a stopping engine waits for reports still being delivered, once it has closed: a part
 * of the stop's time, which an orchestrator's grace period bounds (README, "Stopping without
 * cutting anyone off").
 */
const STOP_WAIT_MS = 5000;

@Injectable()
export class SessionDirectory {
  private readonly logger = new Logger(SessionDirectory.name);
  private readonly open = new Map<Session, OpenSession>();
  /** When each session's connection opened, for its report once it has closed. */
  private readonly opened = new WeakMap<Session, number>();
  /** Each open session's resume token hash, kept while its token stays the same. */
  private readonly keys = new WeakMap<Session, { token: string; key: string }>();
  /** Sessions whose connection closed and whose last save is on its way, by resume token hash. */
  private readonly closings = new Map<string, Promise<void>>();
  /** Reports being delivered: the engine stopping waits for them (a little). */
  private readonly delivering = new Set<Promise<void>>();

  /** What operators read of users' words (reports, `/api/sessions`), redacted; none: as said. */
  readonly redact: Redact | undefined;

  constructor(
    @Inject(sessionsConfig.KEY) private readonly config: SessionsConfig,
    private readonly metrics: EngineMetrics,
    private readonly sessionEnds: SessionEnds,
    lifecycle: Lifecycle,
  ) {
    this.redact = redactor(config.redaction);
    lifecycle.lastly('the session reports', () => this.delivered(), {
      ms: STOP_WAIT_MS,
      late: () =>
        `${this.delivering.size} session report(s) not delivered to SESSION_WEBHOOK_URL within ${STOP_WAIT_MS / 1000}s: stopping without them`,
    });
  }

  add(entry: OpenSession): void {
    this.open.set(entry.session, entry);
    this.opened.set(entry.session, entry.openedAt);
    this.sessionEnds.opened(entry.session.id);
  }

  /**
   * The connection of `session` has closed and its turn is over: its report goes to
   * SESSION_WEBHOOK_URL (when set), in the background; a report that cannot be delivered is logged.
   * What its tools hold for it is let go once it can no longer be resumed here.
   */
  ended(session: Session, end: { closeCode: number; reason: string }, resumable: boolean): void {
    // At most SESSION_TOOLS_KEEP_SECS: a long SESSION_RESUME_SECS (a day, for a chat) would
    // otherwise hold a `per_session` server's browser that long for a user who never comes back.
    const { resumeSecs, toolsKeepSecs } = this.config;
    const kept = resumable ? Math.min(resumeSecs, toolsKeepSecs) * 1000 : 0;
    this.sessionEnds.closed(session.id, kept);
    const { webhookUrl, webhookSecret } = this.config;
    if (!webhookUrl) return;
    const times = { openedAt: this.opened.get(session) ?? Date.now(), endedAt: Date.now() };
    const report = reportOf(session, times, end, resumable, this.redact);
    const delivery = deliver(webhookUrl, webhookSecret, report).then((delivered) => {
      this.delivering.delete(delivery);
      this.metrics.sessionReport(delivered.ok ? 'delivered' : 'failed');
      if (!delivered.ok)
        this.logger.warn(
          `session report not delivered to SESSION_WEBHOOK_URL: ${delivered.why} (session_id=${session.id})`,
        );
    });
    this.delivering.add(delivery);
  }

  /**
   * The engine is stopping (SIGTERM, a rolling update): the reports of the sessions it closed are
   * delivered, retries included (for at most STOP_WAIT_MS: the Lifecycle's bound).
   */
  private async delivered(): Promise<void> {
    if (this.delivering.size === 0) return;
    this.logger.log(`delivering ${this.delivering.size} session report(s) before stopping`);
    await Promise.all(this.delivering);
  }

  /** The connection of the session of `token` has closed: it has `ended` once its last save is done. */
  closing(token: string, ended: Promise<void>): void {
    const key = keyOf(token);
    this.closings.set(key, ended);
    void ended.then(() => {
      if (this.closings.get(key) === ended) this.closings.delete(key);
    });
  }

  /** The open sessions whose resume token has hash `key` (a resume asks for them). */
  holding(key: string): OpenSession[] {
    return this.list().filter(({ session }) => {
      let known = this.keys.get(session);
      if (known?.token !== session.resumeToken) {
        known = { token: session.resumeToken, key: keyOf(session.resumeToken) };
        this.keys.set(session, known);
      }
      return known.key === key;
    });
  }

  /** Settles once the last save of a closed connection of the session (if any) is done. */
  async saving(key: string): Promise<void> {
    await this.closings.get(key);
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
