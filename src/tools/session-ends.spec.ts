import { SessionEnds } from './session-ends.js';

describe('SessionEnds', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  const watched = () => {
    const ends = new SessionEnds();
    const ended: string[] = [];
    ends.ended$.subscribe((id) => ended.push(id));
    return { ends, ended };
  };

  it('ends a session that cannot be resumed at once, and a resumable one when its time is over', () => {
    const { ends, ended } = watched();
    ends.closed('gone', 0);
    ends.closed('away', 2000);
    expect(ended).toEqual(['gone']);
    jest.advanceTimersByTime(1999);
    expect(ended).toEqual(['gone']);
    jest.advanceTimersByTime(1);
    expect(ended).toEqual(['gone', 'away']);
    expect(ends.resumable).toBe(0);
  });

  it('does not end a session resumed in time; its next close counts afresh', () => {
    const { ends, ended } = watched();
    ends.closed('back', 2000);
    jest.advanceTimersByTime(1500);
    ends.opened('back');
    jest.advanceTimersByTime(5000);
    expect(ended).toEqual([]);
    ends.closed('back', 2000);
    jest.advanceTimersByTime(1999);
    expect(ended).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(ended).toEqual(['back']);
  });

  it('forgets what it waits for when the engine stops', () => {
    const { ends, ended } = watched();
    ends.closed('a', 1000);
    ends.onModuleDestroy();
    jest.advanceTimersByTime(5000);
    expect(ended).toEqual([]);
  });
});

describe('SessionEnds.isLive', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('holds from the session opening until it is gone, resumable time included', () => {
    const ends = new SessionEnds();
    expect(ends.isLive('a')).toBe(false);
    ends.opened('a');
    ends.closed('a', 1000);
    expect(ends.isLive('a')).toBe(true);
    jest.advanceTimersByTime(1000);
    expect(ends.isLive('a')).toBe(false);
    ends.opened('a');
    ends.closed('a', 0);
    expect(ends.isLive('a')).toBe(false);
  });
});
