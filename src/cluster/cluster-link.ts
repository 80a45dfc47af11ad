import cluster from 'node:cluster';
import { isClusterMessage, type ClusterMessage, type SessionsOp } from './messages.js';
import type { Claim } from '../tools/tool-set-version.js';

type Channel = Pick<NodeJS.Process, 'on' | 'send'>;

/**
 * An engine process's line to the primary (see primary.ts): keeps the tool sets of all processes
 * equal, and fetches the metrics of all of them. Outside a cluster (`ENGINE_PROCESSES=1`) it does
 * nothing and costs nothing.
 */
export class ClusterLink {
  private nextId = 1;
  private readonly waiting = new Map<number, (reply: ClusterMessage) => void>();
  private install: ((definitions: unknown) => Promise<void>) | undefined;
  private sessionsOp:
    ((op: SessionsOp, session?: string, data?: unknown) => Promise<unknown>) | undefined;
  private circuitNews: ((news: unknown) => void) | undefined;
  /** Listeners of the messages the processes send each other, by channel. */
  private readonly channels = new Map<string, Set<(message: string) => void>>();
  /** Slot requests waiting for the primary's grant, by id. */
  private readonly grants = new Map<string, () => void>();
  private nextSlot = 1;

  constructor(
    private readonly channel: Channel | undefined = cluster.isWorker ? process : undefined,
  ) {
    this.channel?.on('message', (message: unknown) => this.onMessage(message));
  }

  /** Whether this process is one of ENGINE_PROCESSES' (it has a primary). */
  get inCluster(): boolean {
    return this.channel?.send !== undefined;
  }

  /** Sends `message` to the primary (no reply); nothing outside a cluster. */
  tell(message: ClusterMessage): void {
    this.channel?.send?.(message);
  }

  /** Calls `listener` with every message any process sends on `channel` (see primary-state.ts). */
  subscribe(channel: string, listener: (message: string) => void): void {
    let listeners = this.channels.get(channel);
    if (!listeners) this.channels.set(channel, (listeners = new Set()));
    listeners.add(listener);
  }

  /** What to do with definitions another process accepted. */
  onInstall(install: (definitions: unknown) => Promise<void>): void {
    this.install = install;
  }

  /** What to do when another process asks for this one's sessions (see `/api/sessions`). */
  onSessions(
    handler: (op: SessionsOp, session?: string, data?: unknown) => Promise<unknown>,
  ): void {
    this.sessionsOp = handler;
  }

  /** What to do with another process's news of a tool's circuit. */
  onCircuitNews(handler: (news: unknown) => void): void {
    this.circuitNews = handler;
  }

  /** Tells every other engine process `news` of a tool's circuit; nothing outside a cluster. */
  tellCircuit(news: unknown): void {
    this.channel?.send?.({ kind: 'engine.circuits.news', news });
  }

  /**
   * A request for one of `max` slots of `key` across the engine's processes (the primary keeps
   * them: see slot-table.ts): `granted` resolves once it holds one; `release` gives it back, or
   * gives up waiting. Undefined outside a cluster.
   */
  slot(key: string, max: number): { granted: Promise<void>; release: () => void } | undefined {
    const channel = this.channel;
    if (!channel?.send) return undefined;
    const id = `${process.pid}-${this.nextSlot++}`;
    const granted = new Promise<void>((resolve) => this.grants.set(id, resolve));
    channel.send({ kind: 'engine.slots.acquire', id, key, max });
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.grants.delete(id);
      channel.send!({ kind: 'engine.slots.release', id });
    };
    return { granted, release };
  }

  /**
   * The next moment for a call of `key`'s rate limit across the engine's processes (the primary
   * keeps them: see rate-table.ts): how long it waits, in ms, or null when longer than
   * `maxWaitMs` (none reserved). Undefined outside a cluster.
   */
  async reserveRate(
    key: string,
    limit: { calls: number; perMs: number },
    maxWaitMs: number,
  ): Promise<number | null | undefined> {
    const reply = await this.ask((id) => ({
      kind: 'engine.rates.reserve',
      id,
      key,
      ...limit,
      maxWaitMs,
    }));
    return reply?.kind === 'engine.rates.reserved' ? reply.waitMs : undefined;
  }

  /**
   * `op` done by every engine process on its own sessions (this one included), their answers in
   * no set order; undefined outside a cluster.
   */
  async sessions(op: SessionsOp, session?: string, data?: unknown): Promise<unknown[] | undefined> {
    const reply = await this.ask((id) => ({
      kind: 'engine.sessions.request',
      id,
      op,
      ...(session !== undefined && { session }),
      ...(data !== undefined && { data }),
    }));
    return reply?.kind === 'engine.sessions.reply' ? reply.results : undefined;
  }

  /**
   * Installs `definitions` in every other process; resolves once they all have. With `basedOn`,
   * only if the override in force is still the one of that version ('' for none). Undefined
   * outside a cluster.
   */
  async publish(definitions: unknown, basedOn?: string): Promise<Claim | undefined> {
    const reply = await this.ask((id) => ({
      kind: 'engine.tools.publish',
      id,
      definitions,
      ...(basedOn !== undefined && { basedOn }),
    }));
    if (reply?.kind !== 'engine.tools.published') return undefined;
    if (reply.conflict) return { outcome: 'conflict', definitions: reply.definitions ?? null };
    return { outcome: 'claimed' };
  }

  /** The override the other processes have, or null (none, or not in a cluster). */
  async current(): Promise<unknown> {
    const reply = await this.ask((id) => ({ kind: 'engine.tools.current', id }));
    return reply?.kind === 'engine.tools.current' ? (reply.definitions ?? null) : null;
  }

  /** The Prometheus metrics of every engine process, summed by the primary; undefined outside a cluster. */
  async clusterMetrics(): Promise<string | undefined> {
    const reply = await this.ask((id) => ({ kind: 'engine.metrics.request', id }));
    if (reply?.kind !== 'engine.metrics.reply') return undefined;
    if (reply.error !== undefined) throw new Error(reply.error);
    return reply.text;
  }

  /** Sends `build(id)` to the primary and resolves with its reply; undefined outside a cluster. */
  ask(build: (id: number) => ClusterMessage): Promise<ClusterMessage | undefined> {
    const channel = this.channel;
    if (!channel?.send) return Promise.resolve(undefined);
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      channel.send!(build(id));
    });
  }

  private onMessage(message: unknown): void {
    if (!isClusterMessage(message)) return;
    if (message.kind === 'engine.tools.apply') {
      void this.apply(message.id, message.definitions);
      return;
    }
    if (message.kind === 'engine.sessions.ask') {
      void this.answerSessions(message.id, message.op, message.session, message.data);
      return;
    }
    if (message.kind === 'engine.circuits.news') {
      this.circuitNews?.(message.news);
      return;
    }
    if (message.kind === 'engine.broadcast') {
      for (const listener of this.channels.get(message.channel) ?? []) listener(message.message);
      return;
    }
    if (message.kind === 'engine.slots.granted') {
      this.grants.get(message.id)?.();
      this.grants.delete(message.id);
      return;
    }
    if (!('id' in message) || typeof message.id !== 'number') return;
    const resolve = this.waiting.get(message.id);
    this.waiting.delete(message.id);
    resolve?.(message);
  }

  private async answerSessions(
    id: number,
    op: SessionsOp,
    session?: string,
    data?: unknown,
  ): Promise<void> {
    // An operation that failed answers as a process without the session does.
    const result: unknown = await Promise.resolve(this.sessionsOp?.(op, session, data)).then(
      (answer) => answer ?? null,
      () => null,
    );
    this.channel?.send?.({ kind: 'engine.sessions.answer', id, result });
  }

  private async apply(id: number, definitions: unknown): Promise<void> {
    let error: string | undefined;
    try {
      await this.install?.(definitions);
    } catch (e) {
      error = (e as Error).message;
    }
    this.channel?.send?.({ kind: 'engine.tools.applied', id, ...(error ? { error } : {}) });
  }
}
