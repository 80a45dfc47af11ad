import { SessionEnd } from './session-end.js';
import { deadlineNotice } from './time-limit.js';
import { systemMessageOf } from './history.js';
import { Session } from './session.js';

describe('SessionEnd: a conversation at its time limit (SESSION_MAX_SECS)', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  /** A session limited to 60 s, a voice one idle after 50 s; what it said and how it ended. */
  const limited = (goodbyes: Record<string, string> = { en: 'Time is up. Goodbye!' }) => {
    const session = new Session('en', 0, 50);
    session.settings.modality = 'voice';
    const hungUp: { code: number; forget: boolean }[] = [];
    const said: string[] = [];
    const last: string[] = [];
    const end = new SessionEnd(
      session,
      { secs: 50, prompts: 1, phrases: { en: 'Are you there?' }, goodbyes: {} },
      { secs: 60, goodbyes, graceMs: 15_000, noticeSecs: 20 },
      {
        say: (text) => said.push(text),
        sayLast: (text) => last.push(text),
        send: () => undefined,
        hangUp: (code, _reason, forget) => hungUp.push({ code, forget }),
        log: () => undefined,
      },
    );
    return { session, end, hungUp, said, last };
  };

  /** A turn that runs until `stop` is called, as Session.begin runs one. */
  const turn = (session: Session) => {
    let stop!: () => void;
    session.begin(
      (signal) =>
        new Promise<void>((resolve) => {
          stop = resolve;
          signal.addEventListener('abort', () => resolve());
        }),
    );
    return () => stop();
  };

  it('says the goodbye when the time is up, then ends the session for good with 4007', () => {
    const { end, hungUp, last } = limited();
    end.time.start();
    jest.advanceTimersByTime(59_999);
    expect(last).toEqual([]);
    expect(end.time.reached).toBe(false);
    jest.advanceTimersByTime(1);
    expect(end.time.reached).toBe(true);
    expect(last).toEqual(['Time is up. Goodbye!']);
    expect(hungUp).toEqual([]);
    end.turnEnded(false); // the goodbye, given whole
    expect(hungUp).toEqual([{ code: 4007, forget: true }]);
    end.close();
  });

  it('lets the turn in progress end first, and cuts it after the grace', async () => {
    const { session, end, last } = limited();
    end.time.start();
    const finish = turn(session);
    jest.advanceTimersByTime(60_000);
    expect(last).toEqual([]); // the answer goes on
    finish();
    await Promise.resolve();
    end.turnEnded(false);
    expect(last).toEqual(['Time is up. Goodbye!']);
    end.close();

    const slow = limited();
    slow.end.time.start();
    turn(slow.session);
    jest.advanceTimersByTime(60_000 + 14_999);
    expect(slow.session.busy).toBe(true);
    jest.advanceTimersByTime(1);
    await jest.advanceTimersByTimeAsync(0);
    expect(slow.session.busy).toBe(false);
    slow.end.turnEnded(true);
    expect(slow.last).toEqual(['Time is up. Goodbye!']);
    expect(slow.hungUp).toEqual([]);
    slow.end.close();
  });

  it("counts from the conversation's start: a resumed one whose time has run out ends at once", () => {
    const { session, end, last } = limited();
    session.startedAt = Date.now() - 61_000;
    end.time.start();
    jest.advanceTimersByTime(0);
    expect(last).toEqual(['Time is up. Goodbye!']);
    end.close();
  });

  it('ends at once with no goodbye in the language, and asks no silent user after the limit', () => {
    const { end, hungUp, said, last } = limited({ it: 'Arrivederci!' });
    end.time.start();
    end.settingsChanged(); // the silence counts from now: asked at 50 s, let go at 100 s
    jest.advanceTimersByTime(60_000);
    expect(said).toEqual(['Are you there?']);
    expect(last).toEqual([]);
    expect(hungUp).toEqual([{ code: 4007, forget: true }]);
    jest.advanceTimersByTime(120_000);
    expect(said).toEqual(['Are you there?']);
    end.close();
  });

  it('ends the session even if the goodbye never ends', () => {
    const { end, hungUp } = limited();
    end.time.start();
    jest.advanceTimersByTime(60_000 + 15_000);
    expect(hungUp).toEqual([{ code: 4007, forget: true }]);
    end.turnEnded(false); // late: ended once
    expect(hungUp).toHaveLength(1);
  });

  it('counts nothing with SESSION_MAX_SECS=0', () => {
    const session = new Session('en');
    const last: string[] = [];
    const end = new SessionEnd(
      session,
      { secs: 0, prompts: 0, phrases: {}, goodbyes: {} },
      { secs: 0, goodbyes: { en: 'Bye' }, graceMs: 0, noticeSecs: 60 },
      {
        say: () => undefined,
        sayLast: (text) => last.push(text),
        send: () => undefined,
        hangUp: () => undefined,
        log: () => undefined,
      },
    );
    end.time.start();
    jest.advanceTimersByTime(7 * 24 * 3600 * 1000);
    expect(last).toEqual([]);
    expect(end.time.reached).toBe(false);
    // A session's own max_secs counts all the same, from its start.
    session.settings.max_secs = 30;
    end.time.start();
    jest.advanceTimersByTime(0);
    expect(last).toEqual(['Bye']);
    end.close();
  });

  it("takes the session's max_secs over SESSION_MAX_SECS, counted again when it changes", () => {
    const { session, end, last } = limited();
    session.settings.max_secs = 30;
    end.time.start();
    jest.advanceTimersByTime(20_000);
    session.settings.max_secs = 40;
    end.time.start();
    jest.advanceTimersByTime(19_999);
    expect(last).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(last).toEqual(['Time is up. Goodbye!']);
    end.close();
  });
});

describe('deadlineNotice: the model told that the end is near', () => {
  it('says nothing before SESSION_MAX_NOTICE_SECS, the same words from then on', () => {
    const deadline = { at: 100_000, noticeSecs: 60 };
    expect(deadlineNotice(deadline, 39_999)).toBe('');
    const said =
      'This conversation reaches its time limit in less than 1 minute, and then ends: bring it to a close briefly, and start nothing that takes long.';
    expect(deadlineNotice(deadline, 40_000)).toBe(said);
    expect(deadlineNotice(deadline, 99_000)).toBe(said);
    expect(deadlineNotice(deadline, 120_000)).toBe(said);
    expect(deadlineNotice({ at: 100_000, noticeSecs: 45 }, 99_000)).toContain(
      'in less than 45 seconds,',
    );
    expect(deadlineNotice({ at: 100_000, noticeSecs: 120 }, 99_000)).toContain(
      'in less than 2 minutes,',
    );
    expect(deadlineNotice({ at: 100_000, noticeSecs: 0 }, 99_999)).toBe('');
    expect(deadlineNotice(undefined, 99_999)).toBe('');
  });

  it("ends the system message, after the clock, once the session's limit is near", () => {
    jest.useFakeTimers({ now: new Date('2026-12-05T10:00:00Z') });
    const session = new Session('en');
    const end = new SessionEnd(
      session,
      { secs: 0, prompts: 0, phrases: {}, goodbyes: {} },
      { secs: 60, goodbyes: {}, graceMs: 0, noticeSecs: 20 },
      {
        say: () => undefined,
        sayLast: () => undefined,
        send: () => undefined,
        hangUp: () => undefined,
        log: () => undefined,
      },
    );
    end.time.start();
    const system = () =>
      systemMessageOf(session, 'You are an agent.', 'date', new Date()).content as string;
    expect(system()).toBe(
      'You are an agent.\n\nToday is Saturday, 5 December 2026 (2026-12-05), time zone UTC.',
    );
    jest.advanceTimersByTime(40_000);
    expect(system()).toBe(
      'You are an agent.\n\nToday is Saturday, 5 December 2026 (2026-12-05), time zone UTC.\n\nThis conversation reaches its time limit in less than 20 seconds, and then ends: bring it to a close briefly, and start nothing that takes long.',
    );
    end.close();
    jest.useRealTimers();
  });
});
