import { isJsonObject } from '../common/json-pointer.js';
import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { ClusterLink } from '../cluster/cluster-link.js';
import type { SessionsOp } from '../cluster/messages.js';
import { SessionStore } from '../sessions/session-store.js';
import type { SessionDetailDto, SessionSummaryDto } from './dto/sessions.dto.js';
import type { NoteAnswer } from './dto/note.dto.js';
import { SessionDirectory, type OpenSession } from './session-directory.js';
import type { AgentAnswer } from './dto/assign-agent.dto.js';
import { publicConversation, publicSettings, turnsOf } from './session.js';
import { keyOf } from './session-keeper.service.js';
import type { Redact } from '../common/redaction.js';

function summary({ session, openedAt }: OpenSession): SessionSummaryDto {
  const latency = session.latency?.summary();
  return {
    session_id: session.id,
    opened_at: new Date(openedAt).toISOString(),
    started_at: new Date(session.startedAt).toISOString(),
    ...(session.deadline && { ends_at: new Date(session.deadline.at).toISOString() }),
    busy: session.busy,
    modality: session.settings.modality,
    channel: session.settings.channel,
    language: session.settings.language,
    turns: turnsOf(session),
    messages: session.history.length,
    ...(session.usage && { usage: session.usage }),
    ...(latency && { latency }),
    ...(session.agent && { agent: session.agent.name }),
  };
}

/** An open session's settings (variables' and client tools' names only) and conversation. */
function detail(entry: OpenSession, redact: Redact | undefined): SessionDetailDto {
  return {
    ok: true,
    ...summary(entry),
    settings: publicSettings(entry.session.settings),
    ...publicConversation(entry.session, redact),
  };
}

/**
 * An administrator's note told to the session of `entry`: its answer, or why it was refused
 * (`refused`: the error event's code). `data` came through Redis or another process: checked.
 */
async function noted(entry: OpenSession, data: unknown): Promise<NoteAnswer> {
  const { text, respond } = (data ?? {}) as { text?: unknown; respond?: unknown };
  if (typeof text !== 'string' || typeof respond !== 'boolean')
    return { ok: false, refused: 'invalid_message', error: 'a note needs a text and respond' };
  const refused = await entry.note(text, respond);
  if (refused) return { ok: false, refused: refused.code, error: refused.message };
  return { ok: true, session_id: entry.session.id, added: true, respond };
}

async function assigned(entry: OpenSession, data: unknown): Promise<AgentAnswer> {
  const { agent } = (data ?? {}) as { agent?: unknown };
  if (typeof agent !== 'string' && agent !== null)
    return { ok: false, error: 'an assistant is a name, or null' };
  const refused = await entry.assign(agent);
  if (refused) return { ok: false, error: refused };
  return { ok: true, session_id: entry.session.id, agent: entry.session.agent?.name ?? null };
}

/** How long start-up waits for this process to answer the other replicas' requests. */
const ANSWERING_WAIT_MS = 3000;

/**
 * The sessions open on this engine, wherever they are: this process's, those of the other engine
 * processes (ENGINE_PROCESSES), and with Redis those of every replica sharing it. An operation
 * (list, read, close, an answering machine's verdict) reaches the process that holds each.
 */
@Injectable()
export class OpenSessions implements OnModuleInit {
  private readonly logger = new Logger('Sessions');
  /** Settles once this process answers other replicas for its sessions (or cannot). */
  private readonly answering: Promise<void> | undefined;

  constructor(
    private readonly directory: SessionDirectory,
    private readonly cluster: ClusterLink,
    private readonly store: SessionStore,
  ) {
    cluster.onSessions((op, id, data) => this.local(op, id, data));
    // With Redis, every process of every replica answers for its own sessions.
    this.answering = store.fanout
      ?.answer((op, id, data) => this.local(op, id, data))
      .catch((error: unknown) =>
        this.logger.warn(`sessions are reached on this replica only: ${(error as Error).message}`),
      );
  }

  /**
   * The engine takes no connection before it answers the other replicas (a while at most): a
   * session opened at once must be listed, read and closed from any of them. Not with Redis away
   * at start-up (the store gave up its wait for it): no replica can ask meanwhile, and the answers
   * begin once it is back.
   */
  async onModuleInit(): Promise<void> {
    // `answering` never rejects (its failure is logged); the timer holds no process open.
    if (this.answering && this.store.connected)
      await Promise.race([this.answering, sleep(ANSWERING_WAIT_MS, undefined, { ref: false })]);
  }

  /**
   * `op` on this process's sessions: their summaries, one's detail, one closed, told an
   * answering machine took its call (`machine`, `fax`), told a note, or given an assistant
   * (`agent`); null for none.
   */
  private async local(op: SessionsOp, id?: string, data?: unknown): Promise<unknown> {
    if (op === 'list') return this.directory.list().map(summary);
    if (op === 'release') {
      const held = this.directory.holding(id ?? '');
      await Promise.all(held.map((entry) => entry.release()));
      // A connection already closed, whose last save is on its way: the resume waits for it.
      await this.directory.saving(id ?? '');
      return held.length > 0 ? { released: held.length } : null;
    }
    const entry = id === undefined ? undefined : this.directory.get(id);
    if (!entry) return null;
    if (op === 'read') return detail(entry, this.directory.redact);
    if (op === 'machine' || op === 'fax')
      return { ok: true, session_id: entry.session.id, told: entry.answeredBy(op) };
    if (op === 'note') return noted(entry, data);
    if (op === 'agent') return assigned(entry, data);
    await entry.close();
    return { ok: true, session_id: entry.session.id, closed: true };
  }

  /**
   * `op` on the sessions of every replica sharing the session store's Redis, or of every engine
   * process (ENGINE_PROCESSES) of this one, or of this process alone.
   */
  async everywhere(op: SessionsOp, id?: string, data?: unknown): Promise<unknown[]> {
    const { fanout } = this.store;
    if (fanout)
      try {
        return await fanout.ask(op, id, data);
      } catch (error) {
        this.logger.warn(
          `Redis unavailable: sessions are reached on this replica only (${(error as Error).message})`,
        );
      }
    return (await this.cluster.sessions(op, id, data)) ?? [await this.local(op, id, data)];
  }

  /**
   * Before a session is resumed: the connections of every process (this one too) still holding
   * it (the client came back before they were seen dead) are closed as taken over, each once its
   * turn is saved, and the last saves of those just closed are waited for, so that the resume
   * gets that turn too.
   */
  async release(token: string): Promise<void> {
    await this.everywhere('release', keyOf(token));
  }

  /**
   * The one answer of the process that has session `id`; undefined when none has it. An answer
   * naming the session comes first (a refusal names none): a replica of another version may
   * answer what it should not, in another shape (what is no object is no answer).
   */
  async one<T>(op: SessionsOp, id: string, data?: unknown): Promise<T | undefined> {
    const answers = (await this.everywhere(op, id, data)).filter(isJsonObject);
    return (answers.find((r) => r.session_id === id) ?? answers[0]) as T | undefined;
  }
}
