import { readFileSync, readdirSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** The nice values a process may ask for itself: 0 (as started) to 19 (runs only on CPU time nobody else wants). */
export const MAX_NICE = 19;

export interface CpuPriorityChange {
  readonly pid: number;
  readonly nice: number;
  /** Threads found (1 where the platform has no per-thread priority). */
  readonly threads: number;
  /** Threads whose nice value was raised; the others already ran at `nice` or lower priority. */
  readonly lowered: number;
}

/** Why a process kept its priority: it may not change it (EPERM under a seccomp filter, say) or has gone. */
export class CpuPriorityError extends Error {
  constructor(
    readonly pid: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'CpuPriorityError';
  }
}

function threadsOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).map(Number).filter(Number.isInteger);
  } catch {
    // No /proc (not Linux): the process's priority is one value.
    return [pid];
  }
}

/**
 * Lowers the CPU priority of every thread of `pid` (this process by default)
 * to at least `nice`; never raises one. On Linux a nice value belongs to a
 * thread, not a process: setting it for a pid changes only that thread, so a
 * Node process's V8, libuv and worker threads — and a Go server's — would
 * keep competing at full priority. Threads started later inherit the value of
 * the thread that starts them, so a process that lowers all of its threads
 * early stays lowered.
 *
 * Why: on a host shared with the api and PostgreSQL, work that can wait a
 * little (the worker's placements and pushes, Temporal's bookkeeping) then
 * takes only the CPU time heartbeat ingest and the data path leave, instead
 * of an equal share of it (docs/OPERATIONS.md, "CPU priority").
 */
export function lowerCpuPriority(nice: number, pid: number = process.pid): CpuPriorityChange {
  if (!Number.isInteger(nice) || nice < 0 || nice > MAX_NICE)
    throw new RangeError(`nice must be a whole number from 0 to ${MAX_NICE}, got ${nice}`);
  const threads = threadsOf(pid);
  let lowered = 0;
  for (const tid of threads) {
    try {
      if (getPriority(tid) >= nice) continue;
      setPriority(tid, nice);
      lowered += 1;
    } catch (error) {
      const code = (error as { info?: { code?: string }; code?: string }).info?.code ?? '';
      // A thread that ended between the listing and the call is no reason to stop.
      if (code === 'ESRCH' && tid !== pid) continue;
      throw new CpuPriorityError(
        pid,
        code || 'UNKNOWN',
        `could not lower the CPU priority of process ${pid} (thread ${tid}) to nice ${nice}: ${
          error instanceof Error ? error.message : String(error)
        }`,
      );
    }
  }
  return { pid, nice, threads: threads.length, lowered };
}

/**
 * The nice value of each thread of `pid` (Linux, from /proc; threads that end while being read are left out), to
 * check what a process runs at.
 */
export function threadNiceValues(pid: number): number[] {
  const values: number[] = [];
  for (const tid of threadsOf(pid)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      // Fields after the command name (which may hold spaces) start at field 3; nice is field 19.
      values.push(Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
    } catch {
      // Ended meanwhile.
    }
  }
  return values;
}
