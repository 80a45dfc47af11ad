import { SessionEnds } from '../tools/session-ends.js';
import type { EngineMetrics } from '../metrics/engine-metrics.js';
import type { SessionsConfig } from '../config/app.config.js';
import type { RedactionSettings } from '../common/redaction.js';
import { SessionDirectory } from './session-directory.js';
import { Lifecycle } from '../lifecycle/lifecycle.service.js';
import type { Session } from './session.js';

describe('SessionDirectory: what tools hold for a closed session', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  /** When (ms after its connection closed) the session is gone for its tools, with `resumeSecs`. */
  const goneAfter = (resumeSecs: number, resumable = true, toolsKeepSecs = 600) => {
    const ends = new SessionEnds();
    const redaction: RedactionSettings = { kinds: [], patterns: [] };
    const config = { resumeSecs, toolsKeepSecs, webhookUrl: '', redaction } as SessionsConfig;
    const directory = new SessionDirectory(config, {} as EngineMetrics, ends, new Lifecycle());
    let gone: number | undefined;
    const start = Date.now();
    ends.ended$.subscribe(() => (gone = Date.now() - start));
    directory.ended({ id: 's-1' } as Session, { closeCode: 1006, reason: 'dropped' }, resumable);
    jest.advanceTimersByTime(24 * 3600_000);
    return gone;
  };

  it('keeps it while the session may be resumed, at most SESSION_TOOLS_KEEP_SECS; at once gone when it cannot be', () => {
    expect(goneAfter(120)).toBe(120_000);
    expect(goneAfter(24 * 3600)).toBe(600_000);
    expect(goneAfter(24 * 3600, true, 3600)).toBe(3600_000);
    expect(goneAfter(300, true, 0)).toBe(0);
    expect(goneAfter(300, false)).toBe(0);
  });
});
