import { AnswerWatch } from './answer-watch.js';

class Unanswered extends Error {}
const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('AnswerWatch', () => {
  let answers = false;
  let probes = 0;
  let watch: AnswerWatch;
  beforeEach(() => {
    answers = false;
    probes = 0;
    watch = new AnswerWatch(
      () => (probes++, answers ? Promise.resolve('PONG') : Promise.reject(new Unanswered())),
      (error) => error instanceof Unanswered,
      10,
    );
  });
  afterEach(() => watch.stop());

  it('runs commands while the server answers, and a failure of another kind changes nothing', async () => {
    expect(await watch.run(() => Promise.resolve(1))).toBe(1);
    await expect(watch.run(() => Promise.reject(new Error('refused')))).rejects.toThrow('refused');
    expect(watch.ok).toBe(true);
    await settle(30);
    expect(probes).toBe(0);
  });

  it('fails commands at once once one went unanswered, until a probe is answered', async () => {
    await expect(watch.run(() => Promise.reject(new Unanswered()))).rejects.toThrow(Unanswered);
    expect(watch.ok).toBe(false);
    let ran = false;
    await expect(watch.run(() => Promise.resolve((ran = true)))).rejects.toThrow(
      'Redis (SESSION_STORE_URL) is not answering',
    );
    expect(ran).toBe(false);
    await settle(40);
    expect(probes).toBeGreaterThan(1);
    expect(watch.ok).toBe(false);
    answers = true;
    await settle(40);
    expect(watch.ok).toBe(true);
    expect(await watch.run(() => Promise.resolve('saved'))).toBe('saved');
    // Answered: probing has stopped.
    const after = probes;
    await settle(40);
    expect(probes).toBe(after);
  });
});
