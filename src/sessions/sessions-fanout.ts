/**
 * `/api/sessions` across replicas: with sessions kept in Redis, an operation on the sessions
 * (list, read, close) is published to every engine process of every replica sharing that Redis,
 * and their answers gathered. Pure but for the Redis client it is given: no Nest import.
 */
import { messageObject } from '../common/message-object.js';
import { randomUUID } from 'node:crypto';
import { isSessionsOp, type SessionsOp } from '../cluster/messages.js';

const REQUESTS = 'agent-engine:sessions:requests';
const REPLIES = 'agent-engine:sessions:replies:';

/** The part of a node-redis client the fan-out uses. */
export interface PubSubClient {
  publish(channel: string, message: string): Promise<number>;
  subscribe(channel: string, listener: (message: string) => void): Promise<unknown>;
}

/** What a process answers for its own sessions: their summaries, one's detail, one closed; null for none. */
export type SessionsAnswer = (op: SessionsOp, session?: string, data?: unknown) => Promise<unknown>;

interface Pending {
  results: unknown[];
  /** How many processes received the request (PUBLISH's count); unknown until it answers. */
  expected: number;
  finish: () => void;
}

export class SessionsFanout {
  /** This process's reply channel. */
  private readonly replies = REPLIES + randomUUID();
  private readonly pending = new Map<string, Pending>();
  private started: Promise<void> | undefined;

  /**
   * `publisher`: the store's client; `subscriber`: a connection of its own (a subscribed
   * connection sends no other commands), connected by `connect`.
   */
  constructor(
    private readonly publisher: PubSubClient,
    private readonly subscriber: PubSubClient,
    private readonly connect: () => Promise<void>,
    private readonly timeoutMs = 2000,
  ) {}

  /** Answers the requests of every process with `answer` (this one's sessions) from now on. */
  answer(answer: SessionsAnswer): Promise<void> {
    return (this.started ??= (async () => {
      await this.connect();
      // Replies first: a request this process sends is answered by itself too.
      await this.subscriber.subscribe(this.replies, (raw) => this.onReply(raw));
      await this.subscriber.subscribe(REQUESTS, (raw) => void this.onRequest(raw, answer));
    })());
  }

  /**
   * `op` on the sessions of every process that shares the Redis (this one too): their answers,
   * as many as received the request, or those that came within the time-out.
   */
  ask(op: SessionsOp, session?: string, data?: unknown): Promise<unknown[]> {
    const id = randomUUID();
    return new Promise<unknown[]>((resolve, reject) => {
      const entry: Pending = {
        results: [],
        expected: Infinity,
        finish: () => {
          clearTimeout(timer);
          this.pending.delete(id);
          resolve(entry.results);
        },
      };
      const timer = setTimeout(entry.finish, this.timeoutMs);
      this.pending.set(id, entry);
      const request = {
        id,
        op,
        ...(session !== undefined && { session }),
        ...(data !== undefined && { data }),
        replyTo: this.replies,
      };
      this.publisher.publish(REQUESTS, JSON.stringify(request)).then(
        (receivers) => {
          entry.expected = receivers;
          if (entry.results.length >= receivers) entry.finish();
        },
        (error: unknown) => {
          clearTimeout(timer);
          this.pending.delete(id);
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  }

  private async onRequest(raw: string, answer: SessionsAnswer): Promise<void> {
    const request = messageObject(raw);
    if (!request) return;
    const { id, op, session, data, replyTo } = request;
    if (typeof id !== 'string' || typeof replyTo !== 'string' || !replyTo.startsWith(REPLIES))
      return;
    if (!isSessionsOp(op)) return;
    let result: unknown = null;
    try {
      result = await answer(op, typeof session === 'string' ? session : undefined, data);
    } catch {
      // this process could not answer: as if it had none of the sessions
    }
    await this.publisher.publish(replyTo, JSON.stringify({ id, result })).catch(() => undefined);
  }

  private onReply(raw: string): void {
    const reply = messageObject(raw);
    const entry = typeof reply?.id === 'string' ? this.pending.get(reply.id) : undefined;
    if (!entry) return;
    entry.results.push(reply!.result ?? null);
    if (entry.results.length >= entry.expected) entry.finish();
  }
}
