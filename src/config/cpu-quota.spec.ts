import { cgroupCpuLimit } from './cpu-quota.js';

/** A reader of the given cgroup files; any other path is missing. */
const files =
  (contents: Record<string, string>) =>
  (path: string): string => {
    if (path in contents) return contents[path]!;
    throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
  };

describe('cgroupCpuLimit (ENGINE_PROCESSES=auto in a container)', () => {
  it.each([
    [{ '/sys/fs/cgroup/cpu.max': '200000 100000\n' }, 2],
    [{ '/sys/fs/cgroup/cpu.max': '150000 100000' }, 2],
    [{ '/sys/fs/cgroup/cpu.max': '50000 100000' }, 1],
    [{ '/sys/fs/cgroup/cpu.max': 'max 100000' }, undefined],
    [
      {
        '/sys/fs/cgroup/cpu/cpu.cfs_quota_us': '400000',
        '/sys/fs/cgroup/cpu/cpu.cfs_period_us': '100000',
      },
      4,
    ],
    [
      {
        '/sys/fs/cgroup/cpu/cpu.cfs_quota_us': '-1',
        '/sys/fs/cgroup/cpu/cpu.cfs_period_us': '100000',
      },
      undefined,
    ],
    [{}, undefined],
  ])('reads %j as %s CPU(s)', (contents, cpus) => {
    expect(cgroupCpuLimit(files(contents))).toBe(cpus);
  });
});
