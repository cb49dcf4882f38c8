import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';

/**
 * Child processes of the bench (runtime, nginx, gateway, PostgreSQL,
 * load generator): started with their output in a log file, stopped by pid
 * with a signal and a deadline, and all stopped again on the way out whatever
 * happened, so a failed or interrupted run leaves nothing behind.
 */
export interface StartedProcess {
  readonly name: string;
  readonly child: ChildProcess;
  readonly logFile: string | null;
  /** Resolves when the process has exited (never rejects). */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Whether it has exited already. */
  hasExited(): boolean;
  /** The last lines of its log, for error messages. */
  tail(lines?: number): string;
  /** Sends the stop signal, then SIGKILL after `graceMs`; resolves once it is gone. */
  stop(graceMs?: number): Promise<void>;
}

export interface ProcessSpec {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  /** stdout and stderr go here; null: the caller reads them (stdio pipes). */
  readonly logFile: string | null;
  readonly stopSignal?: NodeJS.Signals;
}

const running = new Set<StartedProcess>();

export function startProcess(spec: ProcessSpec): StartedProcess {
  const fd = spec.logFile === null ? null : openSync(spec.logFile, 'a');
  const child = spawn(spec.command, [...spec.args], {
    env: spec.env ?? process.env,
    cwd: spec.cwd,
    stdio: fd === null ? ['pipe', 'pipe', 'pipe'] : ['ignore', fd, fd],
  });
  if (fd !== null) closeSync(fd);
  let done = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      done = true;
      resolve({ code, signal });
    });
    // A command that cannot be spawned emits error (and no exit).
    child.once('error', () => {
      done = true;
      resolve({ code: null, signal: null });
    });
  });
  const started: StartedProcess = {
    name: spec.name,
    child,
    logFile: spec.logFile,
    exited,
    hasExited: () => done,
    tail(lines = 20) {
      if (spec.logFile === null) return '';
      try {
        return readFileSync(spec.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
      } catch {
        return '';
      }
    },
    async stop(graceMs = 10_000) {
      if (!done) {
        child.kill(spec.stopSignal ?? 'SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      }
      running.delete(started);
    },
  };
  running.add(started);
  void exited.then(() => running.delete(started));
  return started;
}

/** Stops every process this bench started and has not stopped yet, newest first. */
export async function stopAll(graceMs = 5_000): Promise<void> {
  for (const started of [...running].reverse()) await started.stop(graceMs);
}

/** A port the OS considers free right now (bound to 0 and released). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('could not pick a free port');
  return address.port;
}

/** One request; resolves with status and body, or null when the connection failed. */
export function httpCall(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: string } | null> {
  return new Promise((resolve) => {
    const req = request(url, { method: init.method ?? 'GET', headers: init.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.once('end', () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
      );
      res.once('error', () => resolve(null));
    });
    req.setTimeout(5000, () => req.destroy());
    req.once('error', () => resolve(null));
    req.end(init.body);
  });
}

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls `url` until it answers 200. Fails at once when the process exits and
 * after `timeoutMs` otherwise, with the last lines of its log either way.
 */
export async function waitForHttp(owner: StartedProcess, url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  for (;;) {
    if (owner.hasExited()) {
      const { code, signal } = await owner.exited;
      throw new Error(
        `${owner.name} exited (${signal ?? `code ${code}`}) before ${url} answered 200\n${owner.tail()}`,
      );
    }
    const answer = await httpCall(url);
    if (answer?.status === 200) return;
    if (answer !== null) last = `HTTP ${answer.status} ${answer.body.slice(0, 200)}`;
    if (Date.now() > deadline) {
      throw new Error(
        `${owner.name}: ${url} did not answer 200 within ${timeoutMs} ms (${last})\n${owner.tail()}`,
      );
    }
    await delay(50);
  }
}
