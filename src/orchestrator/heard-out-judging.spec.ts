import { AUDIO_GONE_MS, HeardOutJudging, TRANSCRIPTION_GRACE_MS } from './heard-out-judging.js';

describe('HeardOutJudging', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  /** Whether `until` has settled (after the microtasks run). */
  async function settled(promise: Promise<void> | undefined): Promise<boolean> {
    let done = false;
    void promise?.then(() => (done = true));
    await jest.advanceTimersByTimeAsync(0);
    return done;
  }

  it('holds the answer from the start of an utterance heard out until its words are judged', async () => {
    const judging = new HeardOutJudging();
    expect(judging.until).toBeUndefined();
    judging.heard();
    judging.begin();
    const until = judging.until;
    for (let i = 0; i < 20; i++) {
      judging.heard(); // the caller goes on speaking for 2 s
      await jest.advanceTimersByTimeAsync(100);
    }
    expect(await settled(until)).toBe(false);
    const judged = judging.ended();
    await jest.advanceTimersByTimeAsync(TRANSCRIPTION_GRACE_MS - 1);
    expect(await settled(until)).toBe(false);
    judged();
    expect(await settled(until)).toBe(true);
    expect(judging.until).toBeUndefined();
  });

  it('waits no longer once audio stops coming, nor past the grace for a slow transcription', async () => {
    const gone = new HeardOutJudging();
    gone.heard();
    gone.begin();
    const untilGone = gone.until;
    await jest.advanceTimersByTimeAsync(AUDIO_GONE_MS);
    expect(await settled(untilGone)).toBe(false);
    await jest.advanceTimersByTimeAsync(AUDIO_GONE_MS / 2);
    expect(await settled(untilGone)).toBe(true);

    const slow = new HeardOutJudging();
    slow.heard();
    slow.begin();
    const untilSlow = slow.until;
    slow.ended(); // transcribing, never judged
    await jest.advanceTimersByTimeAsync(TRANSCRIPTION_GRACE_MS);
    expect(await settled(untilSlow)).toBe(true);
  });

  it('settles a dropped utterance, and waits for every one still to be judged', async () => {
    const judging = new HeardOutJudging();
    judging.heard();
    judging.begin();
    const first = judging.ended();
    judging.begin(); // another begins while the first is transcribed
    judging.drop();
    expect(await settled(judging.until)).toBe(false);
    first();
    expect(await settled(judging.until)).toBe(true);
    expect(judging.ended()).toBeInstanceOf(Function); // nothing under way: a no-op
  });
});
