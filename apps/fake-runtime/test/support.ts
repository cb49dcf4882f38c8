import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { FAKE_RUNTIME_MAIN } from '../src';

export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** A fake runtime process started by a test, on a port the OS chose. */
export interface RunningFakeRuntime {
  readonly child: ChildProcessWithoutNullStreams;
  readonly url: string;
  readonly port: number;
  readonly exited: Promise<ProcessExit>;
  /** Everything the process wrote so far, stdout then stderr. */
  output(): string;
  /** SIGTERM, then wait for the exit. */
  stop(): Promise<ProcessExit>;
}

/** The compiled entry point, started exactly as a supervisor would: its own node process. */
export function spawnMain(args: readonly string[], env: Record<string, string> = {}) {
  return spawn(process.execPath, [FAKE_RUNTIME_MAIN, ...args], {
    env: { PATH: process.env['PATH'] ?? '', ...env },
  });
}

export function exitOf(child: ChildProcessWithoutNullStreams): Promise<ProcessExit> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve({ code: child.exitCode, signal: child.signalCode });
      return;
    }
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
}

/** Runs the process to completion and collects its output (for config errors and crashes). */
export async function runToExit(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<ProcessExit & { stdout: string; stderr: string }> {
  const child = spawnMain(args, env);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exit = await exitOf(child);
  return { ...exit, stdout, stderr };
}

/**
 * Starts `node main.js --port 0 …` and resolves once its "listening" log line
 * names the port. Fails if the process exits first.
 */
export function startFakeRuntime(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<RunningFakeRuntime> {
  const child = spawnMain(['--port', '0', ...args], env);
  const exited = exitOf(child);
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((resolve, reject) => {
    let found = false;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      if (found) return;
      const port = listeningPort(stdout);
      if (port === undefined) return;
      found = true;
      resolve({
        child,
        port,
        url: `http://127.0.0.1:${port}`,
        exited,
        output: () => stdout + stderr,
        stop: () => {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          return exited;
        },
      });
    });
    void exited.then((exit) => {
      if (!found)
        reject(new Error(`fake runtime exited (${JSON.stringify(exit)}) before listening:\n${stderr}`));
    });
  });
}

function listeningPort(stdout: string): number | undefined {
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    const entry = JSON.parse(line) as { msg?: string; port?: number };
    if (entry.msg === 'fake runtime listening' && typeof entry.port === 'number') return entry.port;
  }
  return undefined;
}

export interface HttpResult {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
}

export function httpCall(baseUrl: string, method: string, path: string, body?: unknown): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      `${baseUrl}${path}`,
      {
        method,
        agent: false,
        headers: payload === undefined ? {} : { 'content-type': 'application/json' },
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (part: Buffer) => parts.push(part));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(parts).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

export async function postJson(baseUrl: string, path: string, body: unknown): Promise<HttpResult> {
  return httpCall(baseUrl, 'POST', path, body);
}

export function parseJson(text: string): unknown {
  return JSON.parse(text) as unknown;
}

/** One SSE `data:` payload and when (ms after the request was sent) its last byte arrived. */
export interface TimedEvent {
  readonly data: string;
  readonly atMs: number;
}

export interface StreamResult {
  readonly status: number;
  readonly contentType: string;
  readonly events: readonly TimedEvent[];
}

/**
 * POSTs a streamed request and records, for every SSE event, the arrival
 * time of the TCP chunk that completed it — what a client actually observes.
 * `abortAfterEvents` destroys the connection once that many events arrived.
 */
export function streamCall(
  baseUrl: string,
  path: string,
  body: unknown,
  options: { abortAfterEvents?: number } = {},
): Promise<StreamResult> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const sentAt = performance.now();
    const events: TimedEvent[] = [];
    const req = request(
      `${baseUrl}${path}`,
      { method: 'POST', agent: false, headers: { 'content-type': 'application/json' } },
      (res) => {
        let buffer = '';
        const done = (): void =>
          resolve({ status: res.statusCode ?? 0, contentType: res.headers['content-type'] ?? '', events });
        res.setEncoding('utf8');
        res.on('data', (text: string) => {
          const atMs = performance.now() - sentAt;
          buffer += text;
          for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            if (block.startsWith('data: ')) events.push({ data: block.slice('data: '.length), atMs });
          }
          if (options.abortAfterEvents !== undefined && events.length >= options.abortAfterEvents) {
            req.destroy();
            done();
          }
        });
        res.on('end', done);
        res.on('error', () => undefined);
      },
    );
    req.on('error', (error) => {
      if (options.abortAfterEvents === undefined) reject(error);
    });
    req.end(payload);
  });
}

/** A counter's value from Prometheus text, summed over label sets matching `labels`. */
export async function counterValue(
  baseUrl: string,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const { text } = await httpCall(baseUrl, 'GET', '/metrics');
  let total = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const match = /^([a-z_]+)(\{[^}]*\})? ([0-9.e+-]+)$/.exec(line);
    if (match === null || match[1] !== name) continue;
    const labelText = match[2] ?? '';
    if (Object.entries(labels).every(([key, value]) => labelText.includes(`${key}="${value}"`)))
      total += Number(match[3]);
  }
  return total;
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export const CHAT_PATH = '/v1/chat/completions';
export const COMPLETION_PATH = '/v1/completions';
