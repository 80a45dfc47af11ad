import { ProgressRelay, type ToolProgressEvent } from './progress-relay.js';

describe('ProgressRelay', () => {
  let now = 0;
  let sent: ToolProgressEvent[];
  let relay: ProgressRelay;
  beforeEach(() => {
    jest.useFakeTimers();
    now = 0;
    sent = [];
    relay = new ProgressRelay(
      (e) => sent.push(e),
      250,
      () => now,
    );
  });
  afterEach(() => jest.useRealTimers());
  const later = (ms: number) => {
    now += ms;
    jest.advanceTimersByTime(ms);
  };

  it('sends nothing for a call it was not told of, or after its result', () => {
    relay.report('c1', { progress: 1 });
    relay.opened('c1', 'search');
    relay.closed('c1');
    relay.report('c1', { progress: 2 });
    later(1000);
    expect(sent).toEqual([]);
  });

  it('sends the first update at once, then the latest one a quarter second after the last sent', () => {
    relay.opened('c1', 'search');
    relay.report('c1', { progress: 1, total: 9 });
    later(100);
    relay.report('c1', { progress: 2, total: 9 });
    relay.report('c1', { progress: 3, total: 9, message: 'three' });
    expect(sent.map((e) => e.progress)).toEqual([1]);
    later(149);
    expect(sent.map((e) => e.progress)).toEqual([1]);
    later(1);
    expect(sent).toEqual([
      { type: 'tool_progress', id: 'c1', name: 'search', progress: 1, total: 9 },
      { type: 'tool_progress', id: 'c1', name: 'search', progress: 3, total: 9, message: 'three' },
    ]);
    later(300);
    relay.report('c1', { progress: 4 });
    expect(sent.map((e) => e.progress)).toEqual([1, 3, 4]);
  });

  it('drops an update held back when the call ends or the turn is over', () => {
    relay.opened('c1', 'a');
    relay.opened('c2', 'b');
    relay.report('c1', { progress: 1 });
    relay.report('c2', { progress: 1 });
    relay.report('c1', { progress: 2 });
    relay.report('c2', { progress: 2 });
    relay.closed('c1');
    relay.close();
    later(1000);
    expect(sent.map((e) => `${e.id}:${e.progress}`)).toEqual(['c1:1', 'c2:1']);
  });

  it('keeps calls apart: one call reporting often holds back no other', () => {
    relay.opened('c1', 'a');
    relay.opened('c2', 'b');
    relay.report('c1', { progress: 1 });
    relay.report('c2', { progress: 1 });
    expect(sent.map((e) => e.id)).toEqual(['c1', 'c2']);
  });
});
