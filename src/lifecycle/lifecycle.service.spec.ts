import { Lifecycle } from './lifecycle.service.js';

describe('Lifecycle', () => {
  it('drains: steps get the deadline, which comes after the grace period or on hurry()', async () => {
    const lifecycle = new Lifecycle();
    const seen: string[] = [];
    lifecycle.onDrain(async (deadline) => {
      await deadline;
      seen.push('deadline');
    });
    lifecycle.onDrain(() => {
      seen.push('quick');
      return Promise.resolve();
    });
    expect(lifecycle.draining).toBe(false);
    const drained = lifecycle.drain(60_000);
    expect(lifecycle.draining).toBe(true);
    await Promise.resolve();
    expect(seen).toEqual(['quick']);
    lifecycle.hurry();
    await drained;
    expect(seen).toEqual(['quick', 'deadline']);
  });

  it('ends the grace period on its own', async () => {
    const lifecycle = new Lifecycle();
    lifecycle.onDrain((deadline) => deadline);
    const started = performance.now();
    await lifecycle.drain(50);
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
  });
});
