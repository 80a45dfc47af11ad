import { EventEmitter } from 'node:events';
import type { ClusterMessage } from './messages.js';
import { ClusterLink } from './cluster-link.js';

/** The IPC channel of an engine process, with the primary's side scripted by the test. */
function channel(answer: (message: ClusterMessage) => ClusterMessage | undefined) {
  const emitter = new EventEmitter();
  const sent: ClusterMessage[] = [];
  const ch = Object.assign(emitter, {
    send: (message: ClusterMessage) => {
      sent.push(message);
      const reply = answer(message);
      if (reply) setImmediate(() => emitter.emit('message', reply));
      return true;
    },
  });
  return { ch: ch as unknown as ConstructorParameters<typeof ClusterLink>[0], emitter, sent };
}

describe('ClusterLink', () => {
  it('outside a cluster publishes nowhere and knows no override', async () => {
    const sync = new ClusterLink(undefined);
    await expect(sync.publish([{ name: 'x' }])).resolves.toBeUndefined();
    await expect(sync.current()).resolves.toBeNull();
  });

  it('publishes through the primary and waits for its answer; reads the override in force', async () => {
    const { ch, sent } = channel((m) =>
      m.kind === 'engine.tools.publish'
        ? { kind: 'engine.tools.published', id: m.id }
        : m.kind === 'engine.tools.current'
          ? { kind: 'engine.tools.current', id: m.id, definitions: [{ name: 'y' }] }
          : undefined,
    );
    const sync = new ClusterLink(ch);
    await sync.publish([{ name: 'x' }]);
    expect(sent[0]).toMatchObject({ kind: 'engine.tools.publish', definitions: [{ name: 'x' }] });
    await expect(sync.current()).resolves.toEqual([{ name: 'y' }]);
  });

  it('reads no override as null, and the summed metrics or the reason they could not be summed', async () => {
    let failing = false;
    const { ch } = channel((m) =>
      m.kind === 'engine.tools.current'
        ? { kind: 'engine.tools.current', id: m.id }
        : m.kind === 'engine.metrics.request'
          ? failing
            ? { kind: 'engine.metrics.reply', id: m.id, error: 'process 2 did not answer' }
            : { kind: 'engine.metrics.reply', id: m.id, text: 'engine_turns_total 3\n' }
          : undefined,
    );
    const sync = new ClusterLink(ch);
    await expect(sync.current()).resolves.toBeNull();
    await expect(sync.clusterMetrics()).resolves.toBe('engine_turns_total 3\n');
    failing = true;
    await expect(sync.clusterMetrics()).rejects.toThrow('process 2 did not answer');
    await expect(new ClusterLink(undefined).clusterMetrics()).resolves.toBeUndefined();
  });

  it('installs what another process accepted, and acknowledges (with the error if it fails)', async () => {
    const { ch, emitter, sent } = channel(() => undefined);
    const sync = new ClusterLink(ch);
    const installed: unknown[] = [];
    sync.onInstall((definitions) => {
      if (definitions === 'bad') return Promise.reject(new Error('not an array'));
      installed.push(definitions);
      return Promise.resolve();
    });
    emitter.emit('message', { kind: 'engine.tools.apply', id: 7, definitions: [{ name: 'z' }] });
    emitter.emit('message', { kind: 'engine.tools.apply', id: 8, definitions: 'bad' });
    emitter.emit('message', { unrelated: true });
    await new Promise((r) => setImmediate(r));
    expect(installed).toEqual([[{ name: 'z' }]]);
    expect(sent).toEqual([
      { kind: 'engine.tools.applied', id: 7 },
      { kind: 'engine.tools.applied', id: 8, error: 'not an array' },
    ]);
  });
});
