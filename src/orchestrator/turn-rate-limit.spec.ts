import { TurnRateLimit } from './turn-rate-limit.js';

describe('TurnRateLimit', () => {
  it('admits max turns in a minute, then none until the oldest is a minute old', () => {
    const limit = new TurnRateLimit(2);
    expect(limit.admit(0)).toBe(true);
    expect(limit.admit(10_000)).toBe(true);
    expect(limit.admit(59_999)).toBe(false);
    expect(limit.admit(60_000)).toBe(true); // the first has left the window
    expect(limit.admit(65_000)).toBe(false);
    expect(limit.admit(70_000)).toBe(true); // so has the second
  });

  it('does not count a refused turn against the next minute', () => {
    const limit = new TurnRateLimit(1);
    expect(limit.admit(0)).toBe(true);
    for (let t = 1000; t < 60_000; t += 1000) expect(limit.admit(t)).toBe(false);
    expect(limit.admit(60_000)).toBe(true);
  });

  it('admits every turn when the limit is 0', () => {
    const limit = new TurnRateLimit(0);
    for (let i = 0; i < 1000; i++) expect(limit.admit(i)).toBe(true);
  });
});
