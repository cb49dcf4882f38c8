import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { FIXTURES_DIR, type Assignment, type Runtime } from '@lunanexa/contracts';
import { FAKE_RUNTIME_LAUNCH_ARGS, FAKE_RUNTIME_MAIN } from '@lunanexa/fake-runtime';
import { createLogger, type Logger } from '@lunanexa/observability';
import type { AssignedRuntime, RuntimeSpec } from '../../src/runtimes';

/** Every log line, raw, for "never logged" assertions. */
export class CapturedLog extends Writable {
  raw = '';

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    this.raw += chunk.toString('utf8');
    callback();
  }

  messages(): string[] {
    return this.raw
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => (JSON.parse(line) as { msg: string }).msg);
  }
}

export function capturedLogger(): { logger: Logger; log: CapturedLog } {
  const log = new CapturedLog();
  return { logger: createLogger({ service: 'agent', level: 'debug', destination: log }), log };
}

const CONTRACTS_ROOT = dirname(require.resolve('@lunanexa/contracts/package.json'));

export function contractFixture<T>(name: string): T {
  return JSON.parse(readFileSync(join(CONTRACTS_ROOT, FIXTURES_DIR, name), 'utf8')) as T;
}

export const FAKE_RECORD = (): Runtime => contractFixture<Runtime>('runtime.fake-binary.json');
export const VLLM_RECORD = (): Runtime => contractFixture<Runtime>('runtime.vllm-container.json');
export const ASSIGNMENT = (): Assignment => contractFixture<Assignment>('assignment.json');

export function assignedRuntime(record: Runtime): AssignedRuntime {
  return { id: record.id, kind: record.kind, packaging: record.packaging, launch: record.launch };
}

/** Variables of the fake runtime a test record allowlists. */
export const FAKE_ENV_ALLOWLIST = [
  'LUNANEXA_FAKE_TTFT_MS',
  'LUNANEXA_FAKE_TOKENS_PER_SECOND',
  'LUNANEXA_FAKE_STARTUP_DELAY_MS',
  'LUNANEXA_FAKE_CRASH_AFTER_REQUESTS',
  'LUNANEXA_FAKE_SEED',
];

/**
 * The fake runtime described as an ordinary openai-compatible binary: the
 * node executable (pinned by digest) running the fake runtime's entry point.
 * It speaks the same protocol as vLLM or llama.cpp server.
 */
export function fakeAsOpenAiCompatible(nodeDigest: string): AssignedRuntime {
  return {
    id: 'runtime-fake-openai',
    kind: 'openai-compatible',
    packaging: { type: 'binary', digest: nodeDigest },
    launch: {
      executable: process.execPath,
      args: [FAKE_RUNTIME_MAIN, ...FAKE_RUNTIME_LAUNCH_ARGS],
      envAllowlist: FAKE_ENV_ALLOWLIST,
      containerPort: null,
    },
  };
}

export const SERVED_MODEL = 'llama-3-1-8b-instruct@2024-07-23';

/** A scratch directory with a model artifact file, removed by `cleanup`. */
export function scratchModel(): { modelPath: string; dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'lunanexa-runtime-'));
  const modelPath = join(dir, 'model.fake');
  writeFileSync(modelPath, 'fake weights\n');
  return { dir, modelPath, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function specFor(
  runtime: AssignedRuntime,
  modelPath: string,
  overrides: Partial<RuntimeSpec> = {},
): RuntimeSpec {
  return {
    assignmentId: 'asg-test-1',
    runtime,
    health: { path: '/health', startupTimeoutMs: 10_000, intervalMs: 100 },
    modelPath,
    servedModelName: SERVED_MODEL,
    gpuUuids: [],
    env: {},
    ...overrides,
  };
}

/**
 * True while a process with this pid is running. A zombie is dead: a killed
 * worker whose parent died too is re-parented to pid 1, which in a container
 * may never reap it.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error: unknown) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] !== 'Z';
  } catch {
    // Gone between the two looks, or no /proc: kill(0) is all we know.
    return existsSync(`/proc/${pid}`) || !existsSync('/proc');
  }
}

export function get(baseUrl: string, path: string): Promise<{ status: number; text: string }> {
  return send(baseUrl, 'GET', path, undefined);
}

export function post(
  baseUrl: string,
  path: string,
  body: unknown,
): Promise<{ status: number; text: string }> {
  return send(baseUrl, 'POST', path, JSON.stringify(body));
}

function send(
  baseUrl: string,
  method: string,
  path: string,
  body: string | undefined,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${baseUrl}${path}`,
      { method, agent: false, headers: body === undefined ? {} : { 'content-type': 'application/json' } },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (part: Buffer) => parts.push(part));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(parts).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The `data:` payloads of an SSE body. */
export function sseData(text: string): string[] {
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => block.slice('data: '.length));
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
