/**
 * Sessions kept by the primary of ENGINE_PROCESSES for all its processes, when there is no Redis:
 * node:cluster hands a reconnecting client to any process, and each resumes the session. Pure but
 * for the line to the primary it is given: no Nest import.
 */
import type { ClusterLink } from '../cluster/cluster-link.js';
import type { StoreRequest } from '../cluster/messages.js';
import { SessionStore, type Claim, type Save } from './session-store.js';

export class ClusterSessionStore extends SessionStore {
  /** In memory, the primary's; saved after each turn too, as another process may resume it. */
  readonly kind = 'memory' as const;
  readonly shared = true;
  readonly connected = true;

  constructor(private readonly link: Pick<ClusterLink, 'ask'>) {
    super();
  }

  private async ask(request: StoreRequest): Promise<{ data?: string | null; ok?: boolean }> {
    const reply = await this.link.ask((id) => ({ kind: 'engine.store.request', id, request }));
    if (reply?.kind !== 'engine.store.reply')
      throw new Error('the engine processes have no primary');
    return reply;
  }

  async claim({ key, owner, ttlSecs }: Claim): Promise<string | undefined> {
    return (await this.ask({ op: 'claim', key, owner, ttlSecs })).data ?? undefined;
  }

  async save({ key, owner, ttlSecs, data }: Save): Promise<boolean> {
    return (await this.ask({ op: 'save', key, owner, ttlSecs, data })).ok === true;
  }

  async forget({ key, owner }: Omit<Claim, 'ttlSecs'>): Promise<void> {
    await this.ask({ op: 'forget', key, owner });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** The primary's side: `request` on its `store`, and what to answer. */
export async function answerStore(
  store: SessionStore,
  request: StoreRequest,
): Promise<{ data?: string | null; ok?: boolean }> {
  if (request.op === 'claim') return { data: (await store.claim(request)) ?? null };
  if (request.op === 'save') return { ok: await store.save(request) };
  await store.forget(request);
  return {};
}
