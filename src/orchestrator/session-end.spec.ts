import { SessionEnd } from './session-end.js';
import { Session } from './session.js';

describe('SessionEnd: a silent user let go', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  /** A voice session idle after 1 s, asked never, told goodbye; `sayIt`: the goodbye is said. */
  const ending = (sayIt: boolean) => {
    const session = new Session('en', 0, 1);
    session.settings.modality = 'voice';
    const hungUp: number[] = [];
    const said: string[] = [];
    const end = new SessionEnd(
      session,
      { secs: 1, prompts: 0, phrases: {}, goodbyes: { en: 'Goodbye!' } },
      { secs: 0, goodbyes: {}, graceMs: 0, noticeSecs: 0 },
      {
        say: (text, starting) => {
          said.push(text);
          if (sayIt) starting?.();
        },
        sayLast: () => undefined,
        send: () => undefined,
        hangUp: (code) => hungUp.push(code),
        log: () => undefined,
      },
    );
    end.settingsChanged();
    jest.advanceTimersByTime(1000);
    return { end, hungUp, said };
  };

  it('ends the session once the goodbye it said has been given whole', () => {
    const { end, hungUp, said } = ending(true);
    expect(said).toEqual(['Goodbye!']);
    expect(hungUp).toEqual([]);
    end.turnEnded(false);
    expect(hungUp).toEqual([4003]);
  });

  it('goes on when the goodbye was cut short, or never said (the user took the turn)', () => {
    const cut = ending(true);
    cut.end.turnEnded(true);
    expect(cut.hungUp).toEqual([]);
    const skipped = ending(false);
    skipped.end.turnEnded(false); // the user's own turn
    expect(skipped.hungUp).toEqual([]);
    cut.end.close();
    skipped.end.close();
  });
});
