/**
 * The CPUs a container's CPU limit allows (Kubernetes' `resources.limits.cpu`, Docker's
 * `--cpus`), read from the cgroup: `os.availableParallelism()` sees the node's CPUs, so a pod
 * limited to 2 CPUs on a 64-CPU node would otherwise start 64 processes. Pure: the files are
 * read through `read`.
 */
import { readFileSync } from 'node:fs';

const readText = (path: string) => readFileSync(path, 'utf8');

/** CPUs the cgroup quota allows (rounded up), or undefined when there is none to read. */
export function cgroupCpuLimit(read: (path: string) => string = readText): number | undefined {
  const ratio = (quota: number, period: number) =>
    quota > 0 && period > 0 ? Math.max(1, Math.ceil(quota / period)) : undefined;
  try {
    // cgroup v2: "<quota> <period>", or "max <period>" without a limit.
    const [quota = '', period = ''] = read('/sys/fs/cgroup/cpu.max').trim().split(/\s+/);
    return quota === 'max' ? undefined : ratio(Number(quota), Number(period));
  } catch {
    // cgroup v1 (or none): a quota of -1 is no limit.
  }
  try {
    const quota = Number(read('/sys/fs/cgroup/cpu/cpu.cfs_quota_us').trim());
    const period = Number(read('/sys/fs/cgroup/cpu/cpu.cfs_period_us').trim());
    return ratio(quota, period);
  } catch {
    return undefined;
  }
}
