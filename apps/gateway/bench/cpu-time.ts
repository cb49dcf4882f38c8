import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time of a process and every descendant (user + system), from
 * /proc/<pid>/stat: what serving the requests cost whatever else the shared
 * machine was doing, unlike wall-clock rates. Linux only; null elsewhere.
 */

/** Kernel clock ticks per second (USER_HZ): 100 on every Linux build the bench runs on. */
const TICKS_PER_SECOND = 100;

interface ProcStat {
  readonly ppid: number;
  readonly ticks: number;
}

function readStat(pid: number): ProcStat | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may contain spaces: fields start after the last ')'.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    // Fields 4 (ppid), 14 (utime) and 15 (stime) of proc(5), counted from the one after the name (3).
    return { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return null;
  }
}

/** Milliseconds of CPU used so far by `rootPid` and its live descendants; null without /proc. */
export function processTreeCpuMs(rootPid: number): number | null {
  if (process.platform !== 'linux') return null;
  const stats = new Map<number, ProcStat>();
  for (const entry of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat !== null) stats.set(Number(entry), stat);
  }
  if (!stats.has(rootPid)) return null;
  const inTree = new Set([rootPid]);
  // Parents may have larger pids than their children after wrap-around: repeat until nothing is added.
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, stat] of stats) {
      if (!inTree.has(pid) && inTree.has(stat.ppid)) {
        inTree.add(pid);
        grew = true;
      }
    }
  }
  let ticks = 0;
  for (const pid of inTree) ticks += stats.get(pid)?.ticks ?? 0;
  return (ticks * 1000) / TICKS_PER_SECOND;
}
