import { Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ClusterLink } from '../cluster/cluster-link.js';
import { SessionStore } from '../sessions/session-store.js';
import type { CircuitNews } from './tool-breaker.js';

/** The Redis channel of the news, for every process of every replica sharing the session store. */
export const CIRCUITS_CHANNEL = 'agent-engine:tool-circuits';

/** News as it travels: who sent it, so that a process pays no heed to its own. */
export interface SentCircuitNews extends CircuitNews {
  from: string;
}

/** `raw` (a message from another process, or Redis's text) as news; undefined if it is none. */
export function circuitNewsOf(raw: unknown): SentCircuitNews | undefined {
  let value = raw;
  if (typeof raw === 'string')
    try {
      value = JSON.parse(raw);
    } catch {
      return undefined;
    }
  if (typeof value !== 'object' || value === null) return undefined;
  const { from, tool, target, open } = value as Record<string, unknown>;
  if (typeof from !== 'string' || typeof tool !== 'string' || typeof target !== 'string')
    return undefined;
  if (typeof open !== 'boolean') return undefined;
  return { from, tool, target, open };
}

/**
 * Tools' circuits told across the engine: when this process finds a tool's service down (or
 * back), the others hear of it, so that a service down is spared by every process and replica,
 * not only by the one that found it. With a Redis session store, through its pub/sub (every
 * process of every replica sharing it); otherwise, or while Redis is away, to this engine's
 * other processes (ENGINE_PROCESSES) through the cluster's primary.
 */
@Injectable()
export class ToolCircuitNews {
  private readonly logger = new Logger('ToolCircuits');
  private readonly id = randomUUID();
  private listener: ((news: CircuitNews) => void) | undefined;

  constructor(
    private readonly cluster: ClusterLink,
    private readonly store: SessionStore,
  ) {
    cluster.onCircuitNews((raw) => this.receive(raw));
    store.broadcast
      ?.subscribe(CIRCUITS_CHANNEL, (raw) => this.receive(raw))
      .catch((error: unknown) =>
        this.logger.warn(
          `tools' circuits are told to this engine's processes only: ${(error as Error).message}`,
        ),
      );
  }

  /** What to do with another process's news. */
  onNews(listener: (news: CircuitNews) => void): void {
    this.listener = listener;
  }

  /** Tells every other process and replica `news`. */
  tell(news: CircuitNews): void {
    const sent: SentCircuitNews = { ...news, from: this.id };
    const { broadcast } = this.store;
    if (!broadcast) return this.cluster.tellCircuit(sent);
    broadcast
      .publish(CIRCUITS_CHANNEL, JSON.stringify(sent))
      .catch(() => this.cluster.tellCircuit(sent));
  }

  private receive(raw: unknown): void {
    const news = circuitNewsOf(raw);
    if (!news || news.from === this.id) return;
    const { tool, target, open } = news;
    this.listener?.({ tool, target, open });
  }
}
