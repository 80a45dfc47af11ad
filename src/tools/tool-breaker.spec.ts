import { ToolBreakers, type BreakerRun } from './tool-breaker.js';

/**
 * The circuits' clock (Date.now, which cockatiel reads too) is the test's: only Date is faked,
 * and moved on by `pass(ms)`, so that a busy machine's pauses cannot pass for a cool-down.
 */
describe('ToolBreakers', () => {
  beforeEach(() =>
    jest.useFakeTimers({
      doNotFake: [
        'hrtime',
        'nextTick',
        'performance',
        'queueMicrotask',
        'requestAnimationFrame',
        'cancelAnimationFrame',
        'requestIdleCallback',
        'cancelIdleCallback',
        'setImmediate',
        'clearImmediate',
        'setInterval',
        'clearInterval',
        'setTimeout',
        'clearTimeout',
      ],
    }),
  );
  afterEach(() => jest.useRealTimers());
  const pass = (ms: number) => jest.setSystemTime(Date.now() + ms);
  /** Lets the promises started so far settle (news taken up). */
  const settle = () => new Promise((r) => setImmediate(r));
  let events: string[];
  let breakers: ToolBreakers;
  const make = (failures: number, cooldownMs = 50) => {
    events = [];
    breakers = new ToolBreakers(failures, cooldownMs, {
      opened: (tool, target, n, byNews) =>
        events.push(`opened ${tool} after ${n}${byNews ? ` on news of ${target}` : ''}`),
      closed: (tool, target, by) =>
        events.push(`closed ${tool}${by === 'call' ? '' : ` by ${by} of ${target}`}`),
    });
  };
  let sent: number;
  beforeEach(() => (sent = 0));
  /** One call of `tool`: what it returned, or `refused` when it was not sent. */
  const call = (tool: string, backendDown: boolean, target = 'GET http://a/') =>
    breakers.run(
      tool,
      target,
      (): Promise<BreakerRun<string>> => {
        sent++;
        return Promise.resolve({ value: backendDown ? 'down' : 'up', backendDown });
      },
      (ms) => `refused, again in ${ms <= 50 && ms > 0 ? 'the cool-down' : ms}`,
    );

  it('opens after the failures in a row, answers without sending, then one call tries again', async () => {
    make(3);
    for (let i = 0; i < 3; i++) expect(await call('t', true)).toBe('down');
    expect(events).toEqual(['opened t after 3']);
    expect(breakers.openTools()).toEqual(['t']);
    expect(await call('t', false)).toBe('refused, again in the cool-down');
    expect(sent).toBe(3);
    pass(60);
    expect(await call('t', false)).toBe('up');
    expect(events).toEqual(['opened t after 3', 'closed t']);
    expect(breakers.openTools()).toEqual([]);
    expect(await call('t', true)).toBe('down'); // one failure again: still closed
    expect(await call('t', false)).toBe('up');
  });

  it('counts failures in a row only: a success in between starts the count afresh', async () => {
    make(2);
    await call('t', true);
    await call('t', false);
    await call('t', true);
    expect(await call('t', false)).toBe('up');
    expect(events).toEqual([]);
  });

  it('keeps a circuit open after a failed trial, and reports the opening once', async () => {
    make(1, 300);
    await call('t', true);
    pass(320);
    expect(await call('t', true)).toBe('down');
    expect(await call('t', false)).toMatch(/^refused/);
    expect(events).toEqual(['opened t after 1']);
  });

  it('keeps one circuit per tool, and starts afresh for a tool pointed elsewhere', async () => {
    make(1);
    await call('a', true);
    expect(await call('b', false)).toBe('up');
    expect(await call('a', false)).toMatch(/^refused/);
    expect(await call('a', false, 'GET http://elsewhere/')).toBe('up');
    expect(events).toEqual(['opened a after 1', 'closed a by redefined of GET http://a/']);
  });

  it('counts a call cut short by its turn for nothing', async () => {
    make(2);
    await call('t', true);
    await breakers.run(
      't',
      'GET http://a/',
      () => Promise.resolve({ value: 'cancelled', backendDown: false, cancelled: true }),
      () => 'refused',
    );
    await call('t', true);
    expect(events).toEqual(['opened t after 2']);
  });

  it('says what is left of the cool-down, not the whole of it', async () => {
    make(1, 1000);
    await call('t', true);
    pass(300);
    let retryIn = -1;
    await breakers.run(
      't',
      'GET http://a/',
      () => Promise.reject(new Error('sent')),
      (ms) => (retryIn = ms),
    );
    expect(retryIn).toBe(700);
  });

  it("opens on another process's news, sending nothing, and closes on its news of the service back", async () => {
    make(3, 1000);
    expect(await call('t', false)).toBe('up');
    breakers.told({ tool: 't', target: 'GET http://a/', open: true });
    await settle();
    expect(breakers.openTools()).toEqual(['t']);
    expect(await call('t', false)).toBe('refused, again in 1000');
    expect(sent).toBe(1);
    // Its own opening it tells; one on news it does not (see ToolGuards): `byNews` says which.
    expect(events).toEqual(['opened t after 3 on news of GET http://a/']);
    breakers.told({ tool: 't', target: 'GET http://a/', open: false });
    expect(breakers.openTools()).toEqual([]);
    expect(await call('t', false)).toBe('up');
    // Closed afresh: its count of failures starts from nought.
    await call('t', true);
    await call('t', true);
    expect(await call('t', false)).toBe('up');
    expect(events).toEqual([
      'opened t after 3 on news of GET http://a/',
      'closed t by news of GET http://a/',
    ]);
  });

  it('takes news of a tool not called yet at its first call, within the cool-down only', async () => {
    make(2, 200);
    breakers.told({ tool: 'new', target: 'GET http://a/', open: true });
    breakers.told({ tool: 'late', target: 'GET http://a/', open: true });
    expect(breakers.openTools()).toEqual([]);
    expect(await call('new', false)).toMatch(/^refused/);
    pass(250);
    expect(await call('late', false)).toBe('up');
    expect(sent).toBe(1);
  });

  it("holds a tool first called within another's cool-down for what is left of it", async () => {
    make(2, 1000);
    breakers.told({ tool: 'later', target: 'GET http://a/', open: true });
    pass(600);
    expect(await call('later', false)).toBe('refused, again in 400');
    pass(300);
    expect(await call('later', false)).toBe('refused, again in 100');
    pass(100);
    // The other's cool-down is over: a call tries the service, and finds it back.
    expect(await call('later', false)).toBe('up');
    expect(sent).toBe(1);
    // Its own openings last the whole cool-down.
    await call('later', true);
    await call('later', true);
    expect(await call('later', false)).toBe('refused, again in 1000');
  });

  it('pays no heed to news of a tool whose requests go elsewhere here, or with 0 failures', async () => {
    make(1);
    await call('t', false);
    breakers.told({ tool: 't', target: 'GET http://elsewhere/', open: true });
    breakers.told({ tool: 'u', target: 'GET http://elsewhere/', open: true });
    await settle();
    expect(await call('t', false)).toBe('up');
    expect(await call('u', false)).toBe('up');
    // Closed news of a circuit open here for a tool pointed elsewhere there changes nothing.
    await call('t', true);
    breakers.told({ tool: 't', target: 'GET http://elsewhere/', open: false });
    expect(await call('t', false)).toMatch(/^refused/);
    make(0);
    breakers.told({ tool: 't', target: 'GET http://a/', open: true });
    expect(await call('t', true)).toBe('down');
    expect(events).toEqual([]);
  });

  it('never opens with 0 failures', async () => {
    make(0);
    for (let i = 0; i < 5; i++) expect(await call('t', true)).toBe('down');
    expect(sent).toBe(5);
    expect(events).toEqual([]);
  });
});
