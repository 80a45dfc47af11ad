import type { ServerEvent } from './protocol/server-events.js';
import { DeltaJoiner } from './delta-joiner.js';

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('DeltaJoiner', () => {
  const sent: (ServerEvent | Buffer)[] = [];
  const joiner = new DeltaJoiner((event) => sent.push(event));
  beforeEach(() => (sent.length = 0));

  it('sends the deltas of one task as one frame, once that task is done', async () => {
    joiner.send({ type: 'assistant_delta', text: 'Hel' });
    joiner.send({ type: 'assistant_delta', text: 'lo' });
    expect(sent).toEqual([]);
    await Promise.resolve();
    expect(sent).toEqual([{ type: 'assistant_delta', text: 'Hello' }]);
  });

  it('sends the deltas of separate tasks as they come', async () => {
    joiner.send({ type: 'assistant_delta', text: 'One.' });
    await tick();
    joiner.send({ type: 'assistant_delta', text: ' Two.' });
    await tick();
    expect(sent).toEqual([
      { type: 'assistant_delta', text: 'One.' },
      { type: 'assistant_delta', text: ' Two.' },
    ]);
  });

  it('keeps the order: any other event or audio sends the text joined before it first', async () => {
    const audio = Buffer.from([1, 2]);
    joiner.send({ type: 'assistant_delta', text: 'Let me ' });
    joiner.send({ type: 'assistant_delta', text: 'check.' });
    joiner.send({ type: 'tool_call', id: 'c1', name: 'weather', arguments: {} });
    joiner.send(audio);
    joiner.send({ type: 'assistant_delta', text: 'Sunny.' });
    joiner.send({ type: 'assistant_end', text: 'Let me check.Sunny.' });
    await tick();
    expect(sent).toEqual([
      { type: 'assistant_delta', text: 'Let me check.' },
      { type: 'tool_call', id: 'c1', name: 'weather', arguments: {} },
      audio,
      { type: 'assistant_delta', text: 'Sunny.' },
      { type: 'assistant_end', text: 'Let me check.Sunny.' },
    ]);
  });
});
