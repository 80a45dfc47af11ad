import { SessionsFanout, type PubSubClient } from './sessions-fanout.js';

/** Channels as Redis keeps them in one process: PUBLISH answers how many subscribers got it. */
class Bus {
  private readonly listeners = new Map<string, ((message: string) => void)[]>();
  client(): PubSubClient {
    return {
      publish: (channel, message) => {
        const heard = this.listeners.get(channel) ?? [];
        setImmediate(() => heard.forEach((listen) => listen(message)));
        return Promise.resolve(heard.length);
      },
      subscribe: (channel, listener) => {
        this.listeners.set(channel, [...(this.listeners.get(channel) ?? []), listener]);
        return Promise.resolve();
      },
    };
  }
}

const fanout = (bus: Bus, timeoutMs = 2000) =>
  new SessionsFanout(bus.client(), bus.client(), () => Promise.resolve(), timeoutMs);

describe('SessionsFanout', () => {
  it("gathers every process's answer, its own too, as many as received the request", async () => {
    const bus = new Bus();
    const processes = [fanout(bus), fanout(bus), fanout(bus)];
    await Promise.all(
      processes.map((p, i) => p.answer((op, session) => Promise.resolve({ i, op, session }))),
    );
    const answers = await processes[1]!.ask('read', 's-1');
    expect(answers).toHaveLength(3);
    expect(answers).toEqual(
      expect.arrayContaining([0, 1, 2].map((i) => ({ i, op: 'read', session: 's-1' }))),
    );
  });

  it('answers null for a process that fails, and gives up on one that never answers', async () => {
    const bus = new Bus();
    const [asking, failing, silent] = [fanout(bus, 100), fanout(bus), fanout(bus)];
    await asking.answer(() => Promise.resolve(['mine']));
    await failing.answer(() => Promise.reject(new Error('broken')));
    await silent.answer(() => new Promise(() => undefined));
    const started = Date.now();
    const answers = await asking.ask('list');
    expect(answers.sort()).toEqual([['mine'], null].sort());
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
  });

  it('ignores messages that are no request of its own kind', async () => {
    const bus = new Bus();
    const asked: string[] = [];
    const one = fanout(bus);
    await one.answer((op) => (asked.push(op), Promise.resolve(null)));
    const raw = bus.client();
    for (const message of [
      'not json',
      JSON.stringify({ id: 'x', op: 'drop', replyTo: 'agent-engine:sessions:replies:x' }),
      JSON.stringify({ id: 'x', op: 'list', replyTo: 'elsewhere' }),
    ])
      await raw.publish('agent-engine:sessions:requests', message);
    await new Promise((resolve) => setImmediate(resolve));
    expect(asked).toEqual([]);
  });
});
