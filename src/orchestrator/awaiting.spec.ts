import { getEventListeners } from 'node:events';
import { awaitAnswer } from './awaiting.js';

describe('awaitAnswer', () => {
  const timeouts = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

  it("settles with the client's answer and leaves nothing behind: no entry, no listener, no timer", async () => {
    const waiting = new Map<string, (answer: boolean) => void>();
    const turn = new AbortController();
    const before = timeouts();
    const answered = awaitAnswer(waiting, 'call_1', turn.signal, 60_000);
    expect(getEventListeners(turn.signal, 'abort')).toHaveLength(1);
    waiting.get('call_1')!(true);
    expect(await answered).toEqual({ answer: true });
    expect(waiting.size).toBe(0);
    expect(getEventListeners(turn.signal, 'abort')).toHaveLength(0);
    expect(timeouts()).toBe(before);
  });

  it('expires after its time, and is cancelled by its turn', async () => {
    const waiting = new Map<string, (answer: string) => void>();
    const turn = new AbortController();
    expect(await awaitAnswer(waiting, 'a', turn.signal, 20)).toBe('expired');
    const cut = awaitAnswer(waiting, 'b', turn.signal, 60_000);
    turn.abort();
    expect(await cut).toBe('cancelled');
    expect(waiting.size).toBe(0);
  });

  it('is cancelled at once when its turn is already over', async () => {
    const waiting = new Map<string, (answer: string) => void>();
    const started = performance.now();
    expect(await awaitAnswer(waiting, 'late', AbortSignal.abort(), 5000)).toBe('cancelled');
    expect(performance.now() - started).toBeLessThan(1000);
    expect(waiting.size).toBe(0);
  });
});
