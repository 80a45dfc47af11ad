import { CallDeadline } from './call-deadline.js';

describe('CallDeadline', () => {
  let now = 0;
  beforeEach(() => {
    jest.useFakeTimers();
    now = 0;
  });
  afterEach(() => jest.useRealTimers());
  const later = (ms: number) => {
    now += ms;
    jest.advanceTimersByTime(ms);
  };
  const deadline = () =>
    new CallDeadline(
      1000,
      () => new Error('timed out'),
      () => now,
    );

  it('aborts its signal with the reason once its time is over', () => {
    const d = deadline();
    d.start();
    later(999);
    expect(d.signal.aborted).toBe(false);
    later(1);
    expect(d.signal.reason).toEqual(new Error('timed out'));
  });

  it('stands still while a question waits, and goes on with the time that was left', async () => {
    const d = deadline();
    d.start();
    later(600);
    let answer!: (a: string) => void;
    const asked = d.pausing(() => new Promise<string>((r) => (answer = r)))();
    later(5000);
    expect(d.signal.aborted).toBe(false);
    answer('yes');
    expect(await asked).toBe('yes');
    later(399);
    expect(d.signal.aborted).toBe(false);
    later(1);
    expect(d.signal.aborted).toBe(true);
  });

  it('resumes only when every question is answered; a question before the start holds it', () => {
    const d = deadline();
    d.pause();
    d.start();
    later(5000);
    expect(d.signal.aborted).toBe(false);
    d.pause();
    d.resume();
    later(5000);
    expect(d.signal.aborted).toBe(false);
    d.resume();
    later(1000);
    expect(d.signal.aborted).toBe(true);
  });

  it('never fires once cleared, and starts its whole time again for a request made again', () => {
    const d = deadline();
    d.start();
    later(900);
    d.start();
    later(900);
    expect(d.signal.aborted).toBe(false);
    d.clear();
    later(5000);
    expect(d.signal.aborted).toBe(false);
  });
});
