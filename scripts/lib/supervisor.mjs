// Child processes of the launcher: each service runs in its own process group
// (detached) so Ctrl-C reaches only the launcher, which then stops services in
// order; a group kill also takes anything a service started (runtimes later).
// Pids are recorded under <dataDir>/run/ so a later start can clean up after a
// launcher that was killed with SIGKILL.

import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

export function groupAlive(pgid) {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

function signalGroup(pgid, signal) {
  try {
    process.kill(-pgid, signal);
  } catch {
    // already gone
  }
}

/** SIGTERM the group, wait, then SIGKILL whatever is left. Resolves once the group is empty. */
export async function stopGroup(pgid, { graceMs = 15_000 } = {}) {
  if (!groupAlive(pgid)) return;
  signalGroup(pgid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (groupAlive(pgid) && Date.now() < deadline) await delay(100);
  if (groupAlive(pgid)) {
    signalGroup(pgid, 'SIGKILL');
    while (groupAlive(pgid)) await delay(50);
  }
}

export function tailFile(file, lines = 30) {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/**
 * Starts one service. Output goes to its log file; `onLine` (optional) sees
 * stdout lines as they arrive, for launchers that announce readiness there.
 */
export function startService({ name, command, args, env, cwd, logFile, onLine }) {
  mkdirSync(path.dirname(logFile), { recursive: true });
  const fd = openSync(logFile, 'a');
  writeFileSync(fd, `\n--- ${new Date().toISOString()} ${name}: ${command} ${args.join(' ')}\n`);
  const child = spawn(command, args, {
    cwd,
    env,
    detached: true,
    stdio: ['ignore', onLine ? 'pipe' : fd, fd],
  });
  if (onLine) {
    let buffered = '';
    child.stdout.on('data', (chunk) => {
      writeFileSync(fd, chunk);
      buffered += chunk.toString('utf8');
      let newline;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        onLine(buffered.slice(0, newline));
        buffered = buffered.slice(newline + 1);
      }
    });
  }
  const exited = new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      try {
        closeSync(fd);
      } catch {
        // closed already
      }
      resolve({ code, signal });
    });
  });
  const failedToSpawn = new Promise((_, reject) => child.once('error', reject));
  failedToSpawn.catch(() => undefined);
  return {
    name,
    pid: child.pid,
    logFile,
    exited,
    failedToSpawn,
    stop: (options) => (child.pid ? stopGroup(child.pid, options) : Promise.resolve()),
  };
}

/** Where the launcher records what it started. */
export function runFile(dataDir) {
  return path.join(dataDir, 'run', 'stack.json');
}

export function recordRun(dataDir, record) {
  mkdirSync(path.join(dataDir, 'run'), { recursive: true });
  writeFileSync(runFile(dataDir), `${JSON.stringify(record, null, 2)}\n`);
}

export function clearRun(dataDir) {
  rmSync(runFile(dataDir), { force: true });
}

function commandLineOf(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

/**
 * A launcher killed with SIGKILL leaves its services running. If the recorded
 * launcher is still alive this refuses (one stack per data dir); otherwise it
 * stops every recorded group whose leader still looks like ours (pid reuse
 * guard: the command line must mention the expected marker).
 */
export async function reclaimStaleRun(dataDir, log) {
  const file = runFile(dataDir);
  if (!existsSync(file)) return;
  let record;
  try {
    record = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    rmSync(file, { force: true });
    return;
  }
  if (
    record.launcherPid &&
    record.launcherPid !== process.pid &&
    isAlive(record.launcherPid) &&
    commandLineOf(record.launcherPid).includes('start.mjs')
  ) {
    throw new Error(
      `LunaNexa is already running from ${dataDir} (launcher pid ${record.launcherPid}); stop it first`,
    );
  }
  for (const service of [...(record.services ?? [])].reverse()) {
    if (service.pid && groupAlive(service.pid) && commandLineOf(service.pid).includes(service.marker)) {
      log(`stopping ${service.name} (pid ${service.pid}) left running by an earlier launcher`);
      await stopGroup(service.pid);
    }
  }
  rmSync(file, { force: true });
}
