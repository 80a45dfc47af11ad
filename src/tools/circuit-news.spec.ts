import { EventEmitter } from 'node:events';
import { ClusterLink } from '../cluster/cluster-link.js';
import type { ClusterMessage } from '../cluster/messages.js';
import {
  MemorySessionStore,
  type Broadcast,
  type SessionStore,
} from '../sessions/session-store.js';
import { CIRCUITS_CHANNEL, circuitNewsOf, ToolCircuitNews } from './circuit-news.js';
import type { CircuitNews } from './tool-breaker.js';

const NEWS: CircuitNews = { tool: 'orders', target: 'GET http://crm/orders', open: true };

/** An engine process's IPC channel: what it sent, and a way to deliver the primary's messages. */
function ipc() {
  const emitter = new EventEmitter();
  const sent: ClusterMessage[] = [];
  const channel = Object.assign(emitter, {
    send: (message: ClusterMessage) => sent.push(message) > 0,
  });
  return { link: new ClusterLink(channel as never), emitter, sent };
}

/** A store whose broadcast is `broadcast` (Redis's pub/sub, as the engine sees it). */
const storeWith = (broadcast: Broadcast) =>
  Object.assign(new MemorySessionStore(), { broadcast }) as unknown as SessionStore;

describe('circuitNewsOf', () => {
  it('reads news from an object or its JSON, and nothing else', () => {
    const sent = { ...NEWS, from: 'p1' };
    expect(circuitNewsOf(sent)).toEqual(sent);
    expect(circuitNewsOf(JSON.stringify({ ...sent, extra: 1 }))).toEqual(sent);
    for (const raw of ['{', 'null', 7, { ...sent, open: 'yes' }, { ...sent, from: undefined }])
      expect(circuitNewsOf(raw)).toBeUndefined();
  });
});

describe('ToolCircuitNews', () => {
  const stores: SessionStore[] = [];
  afterAll(() => Promise.all(stores.map((s) => s.close())));
  const memory = () => {
    const store = new MemorySessionStore();
    stores.push(store);
    return store;
  };

  it("without Redis, tells this engine's other processes, and hears theirs but not its own", () => {
    const { link, emitter, sent } = ipc();
    const news = new ToolCircuitNews(link, memory());
    const heard: CircuitNews[] = [];
    news.onNews((n) => heard.push(n));
    news.tell(NEWS);
    expect(sent).toEqual([
      { kind: 'engine.circuits.news', news: { ...NEWS, from: expect.any(String) } },
    ]);
    const own = (sent[0] as { news: unknown }).news;
    emitter.emit('message', { kind: 'engine.circuits.news', news: own });
    emitter.emit('message', { kind: 'engine.circuits.news', news: { ...NEWS, from: 'other' } });
    emitter.emit('message', { kind: 'engine.circuits.news', news: { tool: 'x' } });
    expect(heard).toEqual([NEWS]);
  });

  it('with Redis, tells every replica on its channel, and falls back to the cluster while it is away', async () => {
    const published: string[] = [];
    let deliver: (message: string) => void = () => undefined;
    let up = true;
    const store = storeWith({
      publish: (channel, message) => {
        if (!up) return Promise.reject(new Error('connection closed'));
        published.push(`${channel} ${message}`);
        return Promise.resolve();
      },
      subscribe: (channel, listener) => {
        expect(channel).toBe(CIRCUITS_CHANNEL);
        deliver = listener;
        return Promise.resolve();
      },
    });
    stores.push(store);
    const { link, sent } = ipc();
    const news = new ToolCircuitNews(link, store);
    const heard: CircuitNews[] = [];
    news.onNews((n) => heard.push(n));
    news.tell(NEWS);
    await new Promise((r) => setImmediate(r));
    expect(published).toHaveLength(1);
    expect(sent).toEqual([]);
    deliver(published[0]!.slice(CIRCUITS_CHANNEL.length + 1)); // its own: no heed
    deliver(JSON.stringify({ ...NEWS, open: false, from: 'replica-2' }));
    deliver('not json');
    expect(heard).toEqual([{ ...NEWS, open: false }]);
    up = false;
    news.tell(NEWS);
    await new Promise((r) => setImmediate(r));
    expect(sent).toEqual([
      { kind: 'engine.circuits.news', news: { ...NEWS, from: expect.any(String) } },
    ]);
  });
});
