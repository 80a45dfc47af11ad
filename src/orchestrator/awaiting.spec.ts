import { getEventListeners } from 'node:events';
import { awaitAnswer, holdWaits } from './awaiting.js';

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

  it('is given its whole time again when the user asks it to hold on', async () => {
    const waiting = new Map<string, (answer: string) => void>();
    const other = new Map<string, (answer: string) => void>();
    const turn = new AbortController();
    let held: string | undefined;
    let unheld: string | undefined;
    void awaitAnswer(waiting, 'a', turn.signal, 300).then((w) => (held = String(w)));
    void awaitAnswer(other, 'b', turn.signal, 300).then((w) => (unheld = String(w)));
    const at = (ms: number) => new Promise((r) => setTimeout(r, ms));
    // Timers run in the order they are due: 200 ms before 300, 400 before 200 + 300.
    await at(200);
    holdWaits(waiting);
    await at(200);
    expect([held, unheld]).toEqual([undefined, 'expired']);
    await at(200);
    expect(held).toBe('expired');
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
