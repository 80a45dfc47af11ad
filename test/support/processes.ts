import { readdirSync, readFileSync } from 'node:fs';

/** The ids of the processes (from /proc) whose `stat` and `cmdline` satisfy `wanted`. */
function processes(wanted: (stat: string, cmdline: string) => boolean): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        return wanted(stat, readFileSync(`/proc/${name}/cmdline`, 'utf8'));
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}

/** The processes whose parent is `pid`. */
export function childPids(pid: number): number[] {
  // `pid (comm) state ppid …`: the command may hold spaces, not a ')'.
  return processes((stat) => Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid);
}

/** The processes whose command line holds `text`. */
export function processesWith(text: string): number[] {
  return processes((_, cmdline) => cmdline.includes(text));
}
