import { mkdtempSync, mkdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CodeToolPool } from './code-tool-pool.js';
import { sandboxArgs, zoneinfoDir } from './sandbox-process.js';
import { jobContext, jobOf } from '../../test/support/code-tool-job.js';

/** The host's time zone database (Debian: tzdata, installed by .ci/run). */
const HOST = '/usr/share/zoneinfo';

describe("Python's zoneinfo in code tools (real Pyodide)", () => {
  const pool = new CodeToolPool({ workers: 1, memoryMb: 256, packagesDir: '' });
  beforeAll(() => pool.start(), 60000);
  afterAll(() => pool.close());
  const run = async (body: string) =>
    pool.run({
      kind: 'run',
      job: jobOf(`from zoneinfo import ZoneInfo\nimport datetime\ndef f():\n${body}`, jobContext()),
      timeoutMs: 10000,
    });

  it("reads the host's time zones: a booking tool's local times, summer and winter, and links", async () => {
    const offsets = `    at = lambda month, zone: datetime.datetime(2026, month, 1, 12, tzinfo=ZoneInfo(zone))
    return [str(at(7, "America/New_York").utcoffset()), str(at(1, "Europe/Rome").utcoffset()),
            at(7, "Asia/Kolkata").isoformat(), str(at(1, "US/Alaska").utcoffset())]`;
    expect(await run(offsets)).toMatchObject({
      ok: true,
      result: '["-1 day, 20:00:00", "1:00:00", "2026-07-01T12:00:00+05:30", "-1 day, 15:00:00"]',
    });
    const zones =
      '    import zoneinfo\n    return "Europe/Paris" in zoneinfo.available_timezones()';
    expect(await run(zones)).toMatchObject({ ok: true, result: 'true' });
  });

  it('refuses to change them, as PermissionError, and every call finds them as they were', async () => {
    for (const change of [
      'open("/usr/share/zoneinfo/Europe/Rome", "ab").write(b"x")',
      'open("/usr/share/zoneinfo/New", "w").write("x")',
      '__import__("os").remove("/usr/share/zoneinfo/Europe/Rome")',
      '__import__("os").rename("/usr/share/zoneinfo/Europe/Rome", "/usr/share/zoneinfo/Rome")',
    ])
      expect(await run(`    ${change}`)).toMatchObject({
        ok: false,
        error: expect.stringContaining('PermissionError'),
      });
    expect(await run('    return str(ZoneInfo("Europe/Rome"))')).toMatchObject({
      ok: true,
      result: '"Europe/Rome"',
    });
  });
});

describe('The time zone database a code tools worker reads', () => {
  it("is TZDIR when set, else the host's, read by its real path and granted to the worker alone", () => {
    const dir = mkdtempSync(join(tmpdir(), 'zones-'));
    mkdirSync(join(dir, 'real'));
    symlinkSync(join(dir, 'real'), join(dir, 'link'));
    expect(zoneinfoDir({ TZDIR: join(dir, 'link') })).toBe(join(dir, 'link'));
    expect(zoneinfoDir({ TZDIR: join(dir, 'missing') })).toBe(HOST);
    const args = sandboxArgs({ packagesDir: '', memoryMb: 64, zoneinfo: join(dir, 'link') });
    expect(args).toContain(`--allow-fs-read=${join(dir, 'real')}`);
    expect(JSON.parse(args.at(-1)!)).toMatchObject({ zoneinfo: join(dir, 'real') });
    expect(
      sandboxArgs({ packagesDir: '', memoryMb: 64, zoneinfo: undefined }).join(' '),
    ).not.toContain('zoneinfo');
  });
});
