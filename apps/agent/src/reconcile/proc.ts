import { readdir, readFile } from 'node:fs/promises';

/**
 * What the reconciler reads from /proc to recognise its own runtimes after a
 * restart: a pid alone proves nothing (pids are reused), so a runtime is
 * identified by its pid, its start time (clock ticks since boot, fixed for the
 * life of the process) and the owner tag in its environment.
 */

/** Environment tags the agent gives every runtime it starts (on top of what the runtime record allows). */
export const RUNTIME_OWNER_ENV = 'LUNANEXA_RUNTIME_OWNER';
export const RUNTIME_ASSIGNMENT_ENV = 'LUNANEXA_RUNTIME_ASSIGNMENT';

export interface ProcessIdentity {
  readonly pid: number;
  /** Process group: a runtime leads its own (pgid = pid). */
  readonly pgrp: number;
  /** Parent pid (field 4 of stat). */
  readonly ppid: number;
  /** `starttime` of /proc/<pid>/stat. */
  readonly startTime: string;
}

/** Identity of a live process; null if it does not exist or is a zombie (dead, only not reaped). */
export async function processIdentity(pid: number): Promise<ProcessIdentity | null> {
  let text: string;
  try {
    text = await readFile(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) is in parentheses and may itself contain spaces or ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  const ppid = Number(fields[1]);
  const pgrp = Number(fields[2]);
  const startTime = fields[19];
  if (
    state === undefined ||
    state === 'Z' ||
    state === 'X' ||
    !Number.isInteger(pgrp) ||
    startTime === undefined
  )
    return null;
  return { pid, pgrp, ppid, startTime };
}

/** argv of a process as the kernel holds it; null when unreadable. */
export async function processArgv(pid: number): Promise<string[] | null> {
  try {
    const raw = await readFile(`/proc/${pid}/cmdline`);
    const parts = raw.toString('utf8').split('\0');
    if (parts.at(-1) === '') parts.pop();
    return parts;
  } catch {
    return null;
  }
}

async function environTags(pid: number): Promise<{ owner: string | null; assignmentId: string | null }> {
  let raw: Buffer;
  try {
    raw = await readFile(`/proc/${pid}/environ`);
  } catch {
    // Another user's process (or gone): never ours, since runtimes run as the agent's user.
    return { owner: null, assignmentId: null };
  }
  let owner: string | null = null;
  let assignmentId: string | null = null;
  for (const entry of raw.toString('utf8').split('\0')) {
    if (entry.startsWith(`${RUNTIME_OWNER_ENV}=`)) owner = entry.slice(RUNTIME_OWNER_ENV.length + 1);
    else if (entry.startsWith(`${RUNTIME_ASSIGNMENT_ENV}=`))
      assignmentId = entry.slice(RUNTIME_ASSIGNMENT_ENV.length + 1);
  }
  return { owner, assignmentId };
}

export interface TaggedProcess extends ProcessIdentity {
  readonly assignmentId: string | null;
}

/**
 * Every live process carrying `owner`'s tag: the runtimes this agent started
 * (recorded or not — a crash between spawn and the record leaves one
 * unrecorded) and anything they forked. Null where there is no /proc.
 */
export async function findTaggedProcesses(owner: string): Promise<TaggedProcess[] | null> {
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return null;
  }
  const found: TaggedProcess[] = [];
  await Promise.all(
    entries
      .filter((entry) => /^[0-9]+$/.test(entry))
      .map(async (entry) => {
        const pid = Number(entry);
        if (pid === process.pid) return;
        const tags = await environTags(pid);
        if (tags.owner !== owner) return;
        const identity = await processIdentity(pid);
        if (identity !== null) found.push({ ...identity, assignmentId: tags.assignmentId });
      }),
  );
  return found.sort((a, b) => a.pid - b.pid);
}

/** Linux reports `starttime` in clock ticks; USER_HZ is 100 on every architecture the agent runs on. */
const CLOCK_TICKS_PER_SECOND = 100;
let bootTimeMs: number | null = null;

/**
 * How long ago a process started, from its `starttime` and the boot time in
 * /proc/stat (whole seconds, so this is good to about a second); null where
 * /proc/stat cannot be read.
 */
export async function processAgeMs(startTime: string, now: number = Date.now()): Promise<number | null> {
  if (bootTimeMs === null) {
    try {
      const match = /^btime ([0-9]+)$/m.exec(await readFile('/proc/stat', 'utf8'));
      if (match?.[1] === undefined) return null;
      bootTimeMs = Number(match[1]) * 1000;
    } catch {
      return null;
    }
  }
  return now - (bootTimeMs + (Number(startTime) * 1000) / CLOCK_TICKS_PER_SECOND);
}
