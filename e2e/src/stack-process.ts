import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { RUNTIME_OWNER_ENV, runtimeOwnerTag } from '@lunanexa/agent';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';

/** The repository root (this file runs from e2e/dist/src). */
export const REPO_ROOT = resolve(__dirname, '..', '..', '..');

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

/** Ports for one isolated stack, so the e2e run never collides with a developer's `npm start`. */
export async function isolatedStackEnv(dataDir: string): Promise<Record<string, string>> {
  const names = [
    'LUNANEXA_PG_PORT',
    'LUNANEXA_TEMPORAL_PORT',
    'LUNANEXA_TEMPORAL_UI_PORT',
    'LUNANEXA_API_PORT',
    'LUNANEXA_GATEWAY_PORT',
    'LUNANEXA_WORKER_PORT',
  ];
  const env: Record<string, string> = {
    LUNANEXA_DATA_DIR: dataDir,
    LUNANEXA_AGENTS: '4',
    LUNANEXA_LOG_LEVEL: 'info',
  };
  for (const name of names) env[name] = String(await freePort());
  // Agents take base+1..base+4: pick a base whose next four ports are free.
  for (;;) {
    // Below the kernel's ephemeral range (32768+), where an outgoing connection could take a port before the agent binds it.
    const base = 20_000 + Math.floor(Math.random() * 12_700);
    // HTTP on base+1..4 and SSH on base+21..24 (the launcher's default SSH offset).
    const ok = await Promise.all([1, 2, 3, 4, 21, 22, 23, 24].map((i) => portIsFree(base + i)));
    if (ok.every(Boolean)) {
      env['LUNANEXA_AGENT_BASE_PORT'] = String(base);
      return env;
    }
  }
}

/** True when `port` on 127.0.0.1 can be bound right now. */
export async function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolveFree) => {
    const server = createServer();
    server.once('error', () => resolveFree(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolveFree(true)));
  });
}

export interface LaunchedStack {
  readonly child: ChildProcess;
  readonly output: () => string;
  readonly exited: Promise<number | null>;
}

/** Runs `node scripts/start.mjs` (what `npm start` runs) and waits for its "LunaNexa is up." banner. */
export async function launchStack(env: Record<string, string>, timeoutMs = 300_000): Promise<LaunchedStack> {
  const childEnv: Record<string, string | undefined> = { ...process.env, ...env };
  delete childEnv['DATABASE_URL'];
  const child = spawn(process.execPath, [join(REPO_ROOT, 'scripts', 'start.mjs')], {
    cwd: REPO_ROOT,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));
  const deadline = Date.now() + timeoutMs;
  let exitCode: number | null | undefined;
  void exited.then((code) => (exitCode = code));
  while (!output.includes('LunaNexa is up.')) {
    if (exitCode !== undefined)
      throw new Error(`start.mjs exited ${String(exitCode)} before the stack was up:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGINT');
      throw new Error(`stack not up within ${timeoutMs} ms:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { child, output: () => output, exited };
}

/**
 * Every live process that belongs to a data directory: its command line names
 * the directory (launchers, agents, Temporal's db file), its working
 * directory is inside it (PostgreSQL chdirs into PGDATA), or it is a runtime
 * that one of the directory's simulated agents started (the owner tag in its
 * environment, derived from that agent's state directory).
 */
export function processesUsing(dataDir: string): { pid: number; command: string }[] {
  const agentsDir = join(dataDir, 'agents');
  const runtimeOwners = new Set(
    existsSync(agentsDir)
      ? readdirSync(agentsDir).map(
          (node) => `${RUNTIME_OWNER_ENV}=${runtimeOwnerTag(join(agentsDir, node, 'state'))}`,
        )
      : [],
  );
  const found: { pid: number; command: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    try {
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
      let cwd = '';
      let environment: string[] = [];
      try {
        cwd = readlinkSync(`/proc/${pid}/cwd`);
        environment = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      } catch {
        // process gone or not ours
      }
      if (
        command.includes(dataDir) ||
        cwd.startsWith(dataDir) ||
        environment.some((variable) => runtimeOwners.has(variable))
      )
        found.push({ pid, command });
    } catch {
      // exited while we looked
    }
  }
  return found;
}
