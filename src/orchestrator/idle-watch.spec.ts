import { IdleWatch } from './idle-watch.js';

describe('IdleWatch', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  const watch = (secs = 10, prompts = 2) => {
    const said: string[] = [];
    const state = { busy: false, secs };
    const idle = new IdleWatch({
      secs: () => state.secs,
      prompts,
      busy: () => state.busy,
      prompt: () => said.push('prompt'),
      // The session ends, which closes the watch (as a goodbye's end does).
      end: () => {
        said.push('end');
        idle.close();
      },
    });
    return { idle, said, state };
  };

  it('asks after the silence that follows a turn, as many times as set, then ends', () => {
    const { idle, said } = watch();
    idle.turnEnded();
    jest.advanceTimersByTime(9_999);
    expect(said).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(said).toEqual(['prompt']);
    idle.turnEnded(); // the question said
    jest.advanceTimersByTime(10_000);
    expect(said).toEqual(['prompt', 'prompt']);
    idle.turnEnded();
    jest.advanceTimersByTime(10_000);
    expect(said).toEqual(['prompt', 'prompt', 'end']);
    jest.advanceTimersByTime(60_000);
    expect(said).toHaveLength(3);
  });

  it("counts the silence from when the answer's audio will have played, not from its end", () => {
    const { idle, said } = watch();
    idle.turnEnded(performance.now() + 1_000); // its last second of speech still to play
    jest.advanceTimersByTime(10_999);
    expect(said).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(said).toEqual(['prompt']);
  });

  it('counts the silence again from any activity of the user, who is asked afresh', () => {
    const { idle, said } = watch();
    idle.turnEnded();
    jest.advanceTimersByTime(10_000);
    expect(said).toEqual(['prompt']);
    jest.advanceTimersByTime(6_000);
    idle.activity(); // "yes, still here"
    jest.advanceTimersByTime(9_000);
    expect(said).toEqual(['prompt']);
    for (let i = 0; i < 3; i++) {
      idle.turnEnded();
      jest.advanceTimersByTime(10_000);
    }
    expect(said).toEqual(['prompt', 'prompt', 'prompt', 'end']);
  });

  it('is never idle while a turn runs or the user speaks', () => {
    const { idle, said, state } = watch();
    idle.turnEnded();
    state.busy = true; // a call waits for the user's approval, say
    jest.advanceTimersByTime(60_000);
    expect(said).toEqual([]);
    state.busy = false;
    idle.turnEnded();
    jest.advanceTimersByTime(5_000);
    idle.userSpeaking = true;
    jest.advanceTimersByTime(45_000); // a long utterance
    expect(said).toEqual([]);
    idle.userSpeaking = false;
    jest.advanceTimersByTime(9_999);
    expect(said).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(said).toEqual(['prompt']);
  });

  it('asks again a whole silence later when the question could not be said', () => {
    const { idle, said } = watch(10, 3);
    idle.turnEnded();
    jest.advanceTimersByTime(30_000); // no turn ran for the questions
    expect(said).toEqual(['prompt', 'prompt', 'prompt']);
    jest.advanceTimersByTime(10_000);
    expect(said).toEqual(['prompt', 'prompt', 'prompt', 'end']);
  });

  it('does nothing when off (0 seconds) or closed', () => {
    const off = watch(0);
    off.idle.turnEnded();
    jest.advanceTimersByTime(3_600_000);
    expect(off.said).toEqual([]);
    const closed = watch();
    closed.idle.turnEnded();
    closed.idle.close();
    jest.advanceTimersByTime(60_000);
    expect(closed.said).toEqual([]);
  });

  it('ends without asking with no prompts', () => {
    const { idle, said } = watch(10, 0);
    idle.turnEnded();
    jest.advanceTimersByTime(10_000);
    expect(said).toEqual(['end']);
  });

  it('watches again when the session did not end at once (a goodbye said, and spoken over)', () => {
    const said: string[] = [];
    const idle = new IdleWatch({
      secs: () => 10,
      prompts: 0,
      busy: () => false,
      prompt: () => said.push('prompt'),
      end: () => said.push('goodbye'),
    });
    idle.turnEnded();
    jest.advanceTimersByTime(10_000);
    expect(said).toEqual(['goodbye']);
    idle.activity(); // "I'm here!"
    jest.advanceTimersByTime(9_999);
    expect(said).toEqual(['goodbye']);
    jest.advanceTimersByTime(1);
    expect(said).toEqual(['goodbye', 'goodbye']);
    idle.close();
  });
});
