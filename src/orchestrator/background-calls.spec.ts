import {
  BackgroundCalls,
  ParkedCalls,
  resultMessage,
  type BackgroundResult,
} from './background-calls.js';
import type { BackgroundNews, SharedBackground } from './shared-background.js';

/** An outcome the test settles. */
function pending() {
  let settle!: (o: { ok: boolean; ms: number; text: string } | undefined) => void;
  const outcome = new Promise<{ ok: boolean; ms: number; text: string } | undefined>(
    (resolve) => (settle = resolve),
  );
  return { outcome, settle };
}

describe('BackgroundCalls', () => {
  it('keeps each result as it comes, counted once, until a turn takes them', async () => {
    const arrived: string[] = [];
    const tallied: BackgroundResult[] = [];
    const calls = new BackgroundCalls((r) => arrived.push(r.id));
    const [a, b] = [pending(), pending()];
    calls.track('a', 'slow', a.outcome, (r) => tallied.push(r));
    calls.track('b', 'slower', b.outcome, (r) => tallied.push(r));
    const settled = calls.settled();
    b.settle({ ok: false, ms: 30, text: 'Error: HTTP 500' });
    await new Promise((r) => setImmediate(r));
    expect([arrived, calls.waiting]).toEqual([['b'], true]);
    a.settle({ ok: true, ms: 50, text: 'done' });
    await settled;
    expect(arrived).toEqual(['b', 'a']);
    expect(tallied.map((r) => r.id)).toEqual(['b', 'a']);
    expect(calls.take()).toEqual([
      { id: 'b', name: 'slower', ok: false, ms: 30, text: 'Error: HTTP 500' },
      { id: 'a', name: 'slow', ok: true, ms: 50, text: 'done' },
    ]);
    expect([calls.take(), calls.waiting]).toEqual([[], false]);
  });

  it('aborts its signal when closed, drops what waits and keeps nothing that comes after', async () => {
    const arrived: string[] = [];
    const calls = new BackgroundCalls((r) => arrived.push(r.id));
    const [early, late] = [pending(), pending()];
    calls.track('early', 't', early.outcome, () => {});
    calls.track('late', 't', late.outcome, () => {});
    early.settle({ ok: true, ms: 1, text: 'x' });
    await new Promise((r) => setImmediate(r));
    calls.close();
    expect(calls.signal.aborted).toBe(true);
    expect(calls.waiting).toBe(false);
    late.settle({ ok: true, ms: 2, text: 'y' });
    await calls.settled();
    expect([arrived, calls.take()]).toEqual([['early'], []]);
  });

  it('forgets a call cut off (no outcome), and one whose outcome failed', async () => {
    const calls = new BackgroundCalls(() => {
      throw new Error('never');
    });
    calls.track('cut', 't', Promise.resolve(undefined), () => {});
    calls.track('failed', 't', Promise.reject(new Error('boom')), () => {});
    await calls.settled();
    expect(calls.waiting).toBe(false);
  });

  it('hands parked calls to the connection that resumes their session: results waiting, then the rest', async () => {
    const old: string[] = [];
    const parked = new BackgroundCalls((r) => old.push(r.id));
    const [early, late] = [pending(), pending()];
    parked.track('early', 't', early.outcome, () => {});
    parked.track('late', 't', late.outcome, () => {});
    parked.park();
    early.settle({ ok: true, ms: 1, text: 'x' });
    await new Promise((r) => setImmediate(r));
    const arrived: string[] = [];
    const resumed = new BackgroundCalls((r) => arrived.push(r.id));
    resumed.adopt(parked);
    expect([old, arrived, resumed.running]).toEqual([[], ['early'], 1]);
    const settled = resumed.settled();
    late.settle({ ok: true, ms: 2, text: 'y' });
    await settled;
    expect(arrived).toEqual(['early', 'late']);
    expect(resumed.take().map((r) => r.id)).toEqual(['early', 'late']);
    expect(parked.signal.aborted).toBe(false);
    resumed.close();
    expect(parked.signal.aborted).toBe(true); // the adopted calls end with their new connection
  });

  it("tells its calls' progress to its connection until they end, not while parked, and to the connection that resumes them", async () => {
    const told: string[] = [];
    const tell = (who: string) => (e: { id: string; progress?: number }) =>
      told.push(`${who} ${e.id}:${e.progress}`);
    const calls = new BackgroundCalls(() => {}, tell('first'));
    const [a, b] = [pending(), pending()];
    calls.track('a', 'report', a.outcome, () => {});
    calls.track('b', 'report', b.outcome, () => {});
    calls.report('a', { progress: 1 });
    calls.report('nobody', { progress: 1 });
    a.settle({ ok: true, ms: 1, text: 'x' });
    await new Promise((r) => setImmediate(r));
    calls.report('a', { progress: 2 }); // after its result
    calls.track('failed', 'report', Promise.reject(new Error('boom')), () => {});
    await new Promise((r) => setImmediate(r));
    calls.report('failed', { progress: 1 }); // after it failed
    calls.park();
    calls.report('b', { progress: 1 }); // no connection has the calls
    await new Promise((r) => setTimeout(r, 300));
    const resumed = new BackgroundCalls(() => {}, tell('resumed'));
    resumed.adopt(calls);
    calls.report('b', { progress: 2 });
    expect(told).toEqual(['first a:1', 'resumed b:2']);
    resumed.close();
    calls.report('b', { progress: 3 });
    expect(told).toHaveLength(2);
  });

  it('keeps parked calls for their resume window, then aborts them', async () => {
    const table = new ParkedCalls();
    const [kept, dropped, stopped] = [0, 1, 2].map(() => new BackgroundCalls(() => {}));
    kept!.track('told later', 't', Promise.resolve({ ok: true, ms: 1, text: 'x' }), () => {});
    await kept!.settled();
    table.park('s1', kept!, 10_000);
    table.park('s2', dropped!, 20);
    table.park('s3', stopped!, 10_000);
    expect(table.claim('s1')).toBe(kept);
    expect(kept!.take().map((r) => r.id)).toEqual(['told later']);
    expect(table.claim('s1')).toBeUndefined();
    await new Promise((r) => setTimeout(r, 60));
    expect([kept!.signal.aborted, dropped!.signal.aborted, table.claim('s2')]).toEqual([
      false,
      true,
      undefined,
    ]);
    table.closeAll();
    expect([stopped!.signal.aborted, table.claim('s3')]).toEqual([true, undefined]);
  });

  it('sends the results of calls whose session was resumed in another process there, past their window', async () => {
    // Redis as the processes share it: news to every listener, results kept by session.
    const listeners: BackgroundNews[] = [];
    const kept = new Map<string, BackgroundResult[]>();
    const shared = {
      listen: (news: BackgroundNews) => Promise.resolve(void listeners.push(news)),
      // Each test process's news is another's: `here` false.
      resumed: (id: string) => Promise.resolve(listeners.forEach((l) => l.resumed(id, false))),
      put: (id: string, result: BackgroundResult) => {
        kept.set(id, [...(kept.get(id) ?? []), result]);
        listeners.forEach((l) => l.results(id));
        return Promise.resolve();
      },
      take: (id: string) => {
        const results = kept.get(id) ?? [];
        kept.delete(id);
        return Promise.resolve(results);
      },
    } as unknown as SharedBackground;
    const open = new Map<string, BackgroundCalls>();
    const [here, there] = [new ParkedCalls(shared), new ParkedCalls(shared, (id) => open.get(id))];
    await here.listen();
    await there.listen();
    // A connection of `here` still holding the session is closed before its calls are handed over.
    const tookOver: string[] = [];
    here.takeOver = (id) => Promise.resolve(void tookOver.push(id));
    const calls = new BackgroundCalls(() => {});
    const [early, late] = [pending(), pending()];
    calls.track('early', 't', early.outcome, () => {});
    calls.track('late', 't', late.outcome, () => {});
    here.park('s1', calls, 30);
    early.settle({ ok: true, ms: 1, text: 'x' });
    await new Promise((r) => setImmediate(r));
    // Resumed in the other process: the result that came meanwhile goes there.
    const arrived: string[] = [];
    const resumed = new BackgroundCalls((r) => arrived.push(r.id));
    open.set('s1', resumed);
    await there.resume('s1', resumed);
    await new Promise((r) => setImmediate(r));
    expect([arrived, tookOver]).toEqual([['early'], ['s1']]);
    await new Promise((r) => setTimeout(r, 60));
    expect(calls.signal.aborted).toBe(false); // its window passed: still running
    late.settle({ ok: true, ms: 2, text: 'y' });
    await calls.settled();
    await new Promise((r) => setImmediate(r));
    expect(arrived).toEqual(['early', 'late']);
    expect(kept.size).toBe(0);
    // A result that comes while the session is open nowhere waits for the next resume.
    const again = new BackgroundCalls(() => {});
    const last = pending();
    again.track('last', 't', last.outcome, () => {});
    here.park('s2', again, 10_000);
    await there.resume('s2', new BackgroundCalls(() => {}));
    last.settle({ ok: true, ms: 3, text: 'z' });
    await again.settled();
    await new Promise((r) => setImmediate(r));
    expect(kept.get('s2')?.map((r) => r.id)).toEqual(['last']);
    const next: string[] = [];
    await here.resume('s2', new BackgroundCalls((r) => next.push(r.id)));
    expect([next, kept.size]).toEqual([['last'], 0]);
    // Stopping aborts the calls handed over that still run.
    const stopped = new BackgroundCalls(() => {});
    stopped.track('never', 't', pending().outcome, () => {});
    here.park('s3', stopped, 10_000);
    await there.resume('s3', new BackgroundCalls(() => {}));
    here.closeAll();
    expect(stopped.signal.aborted).toBe(true);
  });

  it('lets a stopping engine wait for parked calls, their results shared, until the deadline', async () => {
    const kept: BackgroundResult[] = [];
    const shared = {
      put: (_id: string, result: BackgroundResult) => Promise.resolve(void kept.push(result)),
    } as unknown as SharedBackground;
    const table = new ParkedCalls(shared);
    const [quick, stuck] = [pending(), pending()];
    const calls = new BackgroundCalls(() => {});
    calls.track('quick', 't', quick.outcome, () => {});
    calls.track('stuck', 't', stuck.outcome, () => {});
    table.park('s1', calls, 10_000);
    let deadline!: () => void;
    let over = false;
    const drained = table
      .drain(new Promise<void>((resolve) => (deadline = resolve)))
      .then(() => (over = true));
    quick.settle({ ok: true, ms: 1, text: 'done' });
    await new Promise((r) => setTimeout(r, 20));
    expect([over, kept.map((r) => r.id)]).toEqual([false, ['quick']]);
    deadline();
    await drained;
    table.closeAll();
    expect(calls.signal.aborted).toBe(true);
    // Without a shared store, a session cannot be resumed elsewhere: nothing to wait for.
    const alone = new ParkedCalls();
    alone.park('s2', new BackgroundCalls(() => {}), 10_000);
    await alone.drain(new Promise(() => {}));
    alone.closeAll();
  });

  it("tells the model whose result it is, apart from the user's words", () => {
    expect(resultMessage({ id: 'call_1', name: 'book', ok: true, ms: 5, text: 'booked' })).toBe(
      '[Not said by the user: the result of book (call call_1), which ran in the background. Tell the user what it means for them.]\nbooked',
    );
  });
});
