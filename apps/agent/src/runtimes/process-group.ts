import { readdir, readFile } from 'node:fs/promises';
import { constants } from 'node:os';

/**
 * Each runtime runs in its own process group (spawned detached: a new
 * session whose id is the runtime's pid), so stopping it reaches every worker
 * it forked, and what is left of it can be found in /proc.
 */

/** Sends `signal` to the whole group; false when no process of the group exists any more. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (error: unknown) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
}

interface ProcStat {
  readonly state: string;
  readonly pgrp: number;
}

function parseStat(text: string): ProcStat | null {
  // The command name (field 2) is in parentheses and may itself contain spaces or ')'.
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = rest[0];
  const pgrp = Number(rest[2]);
  return state === undefined || !Number.isInteger(pgrp) ? null : { state, pgrp };
}

/**
 * Pids of the live processes in group `pgid` (zombies are dead and excluded),
 * or null where there is no /proc (not Linux).
 */
export async function processGroupMembers(pgid: number): Promise<number[] | null> {
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return null;
  }
  const members: number[] = [];
  await Promise.all(
    entries
      .filter((entry) => /^[0-9]+$/.test(entry))
      .map(async (entry) => {
        try {
          const stat = parseStat(await readFile(`/proc/${entry}/stat`, 'utf8'));
          if (stat !== null && stat.pgrp === pgid && stat.state !== 'Z') members.push(Number(entry));
        } catch {
          // The process ended while we looked.
        }
      }),
  );
  return members.sort((a, b) => a - b);
}

/** Summed VmRSS of `pids`, or null where /proc is not readable. */
export async function residentBytes(pids: readonly number[]): Promise<number | null> {
  let total = 0;
  let read = false;
  for (const pid of pids) {
    try {
      const status = await readFile(`/proc/${pid}/status`, 'utf8');
      const match = /^VmRSS:\s+([0-9]+) kB$/m.exec(status);
      if (match?.[1] !== undefined) total += Number(match[1]) * 1024;
      read = true;
    } catch {
      // Gone in between: contributes nothing.
    }
  }
  return read ? total : null;
}

/** Waits until the group has no live process, polling /proc; false if some remain after `timeoutMs`. */
export async function waitForEmptyGroup(pgid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const members = await processGroupMembers(pgid);
    if (members === null || members.length === 0) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The status a shell would report: the exit code, or 128 + the signal number. */
export function exitStatusOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  const number = signal === null ? undefined : constants.signals[signal];
  return number === undefined ? 255 : 128 + number;
}
