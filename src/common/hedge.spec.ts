import { setTimeout as sleep } from 'node:timers/promises';
import { hedge } from './hedge.js';

/** A request answering `value` (or failing with it, an Error) after `ms`, seeing its abort. */
function request(ms: number, value: string | Error) {
  const seen = { asked: false, aborted: false };
  const run = async (signal: AbortSignal) => {
    seen.asked = true;
    signal.addEventListener('abort', () => (seen.aborted = true));
    await sleep(ms, undefined, { signal });
    if (value instanceof Error) throw value;
    return value;
  };
  return Object.assign(run, { seen });
}

describe('hedge', () => {
  const options = (afterMs: number, signal = new AbortController().signal) => {
    const told: string[] = [];
    return {
      told,
      afterMs,
      signal,
      firstFailed: (error: unknown) => told.push(`first failed: ${(error as Error).message}`),
      hedged: () => told.push('hedged'),
    };
  };

  it("takes the first's answer in time, never asking the second", async () => {
    const [first, second] = [request(5, 'one'), request(0, 'two')];
    const o = options(200);
    expect(await hedge(first, second, o)).toEqual({ value: 'one', by: 'first' });
    expect(second.seen.asked).toBe(false);
    expect(o.told).toEqual([]);
  });

  it('asks the second as well when the first is slow, takes the quicker and aborts the other', async () => {
    const [first, second] = [request(200, 'slow'), request(5, 'quick')];
    const o = options(20);
    expect(await hedge(first, second, o)).toEqual({ value: 'quick', by: 'second' });
    expect(first.seen.aborted).toBe(true);
    expect(o.told).toEqual(['hedged']);
    const [late, later] = [request(40, 'late'), request(200, 'later')];
    expect(await hedge(late, later, options(20))).toEqual({ value: 'late', by: 'first' });
    expect(later.seen.aborted).toBe(true);
  });

  it('asks the second at once when the first fails, and never with no wait set', async () => {
    const [first, second] = [request(5, new Error('503')), request(5, 'two')];
    const o = options(0);
    expect(await hedge(first, second, o)).toEqual({ value: 'two', by: 'second' });
    expect(o.told).toEqual(['first failed: 503']);
    const [slow, unasked] = [request(60, 'slow'), request(0, 'two')];
    expect(await hedge(slow, unasked, options(0))).toEqual({ value: 'slow', by: 'first' });
    expect(unasked.seen.asked).toBe(false);
  });

  it('waits for the other when one of two asked fails, and rejects with the last failure', async () => {
    const [first, second] = [request(60, 'one'), request(30, new Error('fallback down'))];
    expect(await hedge(first, second, options(10))).toEqual({ value: 'one', by: 'first' });
    const [a, b] = [request(60, new Error('first down')), request(30, new Error('second down'))];
    const o = options(10);
    await expect(hedge(a, b, o)).rejects.toThrow('first down');
    expect(o.told).toEqual(['hedged', 'first failed: first down']);
  });

  it('aborts both when its signal is aborted, telling no failure of the first', async () => {
    const controller = new AbortController();
    const [first, second] = [request(200, 'one'), request(200, 'two')];
    const o = options(10, controller.signal);
    const answer = hedge(first, second, o);
    await sleep(30);
    controller.abort(new Error('turn cancelled'));
    await expect(answer).rejects.toThrow();
    expect([first.seen.aborted, second.seen.aborted]).toEqual([true, true]);
    expect(o.told).toEqual(['hedged']);
  });
});
