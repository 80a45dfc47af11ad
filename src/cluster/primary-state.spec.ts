import { ClusterLink } from './cluster-link.js';
import { clusterBroadcast, clusterShelf } from './primary-state.js';
import { linked } from '../../test/support/fake-primary.js';

describe("the primary's shared state, from an engine process", () => {
  it('is nowhere outside a cluster', () => {
    const alone = new ClusterLink(undefined);
    expect([clusterShelf(alone, 'results'), clusterBroadcast(alone)]).toEqual([
      undefined,
      undefined,
    ]);
  });

  it('hands a message to every listener of its channel, in this process too', async () => {
    const broadcast = clusterBroadcast(linked())!;
    const heard: string[] = [];
    await broadcast.subscribe('news', (m) => heard.push(`news:${m}`));
    await broadcast.subscribe('other', (m) => heard.push(`other:${m}`));
    await broadcast.publish('news', 'hello');
    await new Promise((r) => setImmediate(r));
    expect(heard).toEqual(['news:hello']);
  });
});
