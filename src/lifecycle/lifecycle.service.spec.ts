import { Logger } from '@nestjs/common';
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

describe('Lifecycle: the last steps once the engine has closed', () => {
  it('runs them together: each may wait for the others to have begun', async () => {
    const lifecycle = new Lifecycle();
    const begun = { reports: false, spans: false };
    const until = async (test: () => boolean) => {
      while (!test()) await new Promise((r) => setTimeout(r, 1));
    };
    lifecycle.lastly('the session reports', async () => {
      begun.reports = true;
      await until(() => begun.spans);
    });
    lifecycle.lastly('the last spans', async () => {
      begun.spans = true;
      await until(() => begun.reports);
    });
    await lifecycle.onApplicationShutdown();
    expect(begun).toEqual({ reports: true, spans: true });
  });

  it('says what the stop still waits for, and goes on past a step that fails', async () => {
    const lifecycle = new Lifecycle();
    expect(lifecycle.waitingFor()).toBe('the engine to close');
    let release!: () => void;
    lifecycle.lastly('the last spans', () => new Promise<void>((r) => (release = r)));
    lifecycle.lastly("the session store's last answers", () => Promise.reject(new Error('gone')));
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => {});
    try {
      const done = lifecycle.onApplicationShutdown();
      await new Promise((r) => setTimeout(r, 5));
      expect(lifecycle.waitingFor()).toBe('the last spans');
      release();
      await done;
      expect(warn).toHaveBeenCalledWith(
        "the session store's last answers failed as the engine stopped: gone",
      );
    } finally {
      warn.mockRestore();
    }
  });

  it('is draining from the signal on, closed or not', async () => {
    const lifecycle = new Lifecycle();
    lifecycle.onDrain(() => Promise.resolve());
    const drained = lifecycle.drain(1000);
    expect(lifecycle.waitingFor()).toBe('the sessions to drain');
    await drained;
    expect(lifecycle.draining).toBe(true);
    expect(lifecycle.waitingFor()).toBe('the engine to close');
  });
});

describe('Lifecycle: a last step past its bound', () => {
  it('is given up at its bound, and the log says so', async () => {
    const lifecycle = new Lifecycle();
    lifecycle.lastly('the last spans', () => new Promise<void>(() => {}), {
      ms: 20,
      late: () => 'the last spans were not sent',
    });
    lifecycle.lastly('the calls carried over', () => new Promise<void>(() => {}), { ms: 20 });
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => {});
    try {
      await lifecycle.onApplicationShutdown();
      expect(warn.mock.calls.map((c) => String(c[0])).sort()).toEqual([
        'the calls carried over: not over within 0.02s, stopping without',
        'the last spans were not sent',
      ]);
      expect(lifecycle.waitingFor()).toBe('the engine to close');
    } finally {
      warn.mockRestore();
    }
  });
});
