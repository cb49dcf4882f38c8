import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, constants, mkdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import type { ArtifactStoreConfig, S3StoreConfig } from './config';
import { EMPTY_ARTIFACT_STORE_CONFIG } from './config';

/**
 * Real artifact store servers for tests: the pinned S3-compatible server
 * (Versity S3 Gateway over a directory) and the reference OCI distribution
 * registry, each a child process on 127.0.0.1 with a free port. The binaries
 * come from LUNANEXA_S3_SERVER_BIN / LUNANEXA_OCI_REGISTRY_BIN (set by
 * `npm test`), else <repo>/.tools/bin where infra/artifact-stores/install.mjs
 * puts them.
 */

const REPO_ROOT = resolve(__dirname, '..', '..', '..', '..');
const READY_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 5_000;

export interface RunningS3Server {
  /** `http://127.0.0.1:<port>` */
  readonly endpoint: string;
  readonly region: string;
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string };
  /** Path-style, signed with the server's root credentials. */
  readonly config: S3StoreConfig;
  /** Where the server keeps buckets as directories and objects as files. */
  readonly dataDir: string;
  readonly pid: number;
  /** An ArtifactStoreConfig reading this server (and nothing else). */
  storeConfig(overrides?: Partial<ArtifactStoreConfig>): ArtifactStoreConfig;
  stop(): Promise<void>;
}

export interface RunningOciRegistry {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** `127.0.0.1:<port>`, the host part of oci:// URIs. */
  readonly registry: string;
  /** The registry runs without authentication. */
  readonly credentials: null;
  readonly dataDir: string;
  readonly pid: number;
  /** The file the filesystem driver keeps a blob's bytes in (to tamper with them underneath the registry). */
  blobDataFile(digest: string): string;
  storeConfig(overrides?: Partial<ArtifactStoreConfig>): ArtifactStoreConfig;
  stop(): Promise<void>;
}

export function s3ServerBinary(env: NodeJS.ProcessEnv = process.env): string {
  return binary(env['LUNANEXA_S3_SERVER_BIN'], 'versitygw', 'LUNANEXA_S3_SERVER_BIN');
}

export function ociRegistryBinary(env: NodeJS.ProcessEnv = process.env): string {
  return binary(env['LUNANEXA_OCI_REGISTRY_BIN'], 'registry', 'LUNANEXA_OCI_REGISTRY_BIN');
}

function binary(override: string | undefined, name: string, variable: string): string {
  const path = override !== undefined && override !== '' ? override : join(REPO_ROOT, '.tools', 'bin', name);
  try {
    accessSync(path, constants.X_OK);
  } catch {
    throw new Error(
      `${path} is not an executable ${name}: run \`node infra/artifact-stores/install.mjs\` (or \`npm test\`, which does) or set ${variable}`,
    );
  }
  return path;
}

/** A loopback port nothing listens on right now (also what an "unreachable store" test points at). */
export function unusedLoopbackPort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address !== null && typeof address === 'object') resolvePort(address.port);
        else reject(new Error('no port'));
      });
    });
  });
}

export async function startS3Server(options: {
  readonly dataDir: string;
  readonly port?: number;
  readonly region?: string;
}): Promise<RunningS3Server> {
  const dataDir = resolve(options.dataDir, 's3');
  mkdirSync(dataDir, { recursive: true });
  const region = options.region ?? 'us-east-1';
  const credentials = {
    accessKeyId: `LUNANEXATEST${randomBytes(4).toString('hex').toUpperCase()}`,
    secretAccessKey: randomBytes(24).toString('base64url'),
  };
  const port = options.port ?? (await unusedLoopbackPort());
  const endpoint = `http://127.0.0.1:${port}`;
  // Credentials through the environment, not argv: /proc/<pid>/cmdline is world-readable.
  const child = spawn(
    s3ServerBinary(),
    ['--port', `127.0.0.1:${port}`, '--region', region, '--quiet', 'posix', '--nometa', dataDir],
    {
      env: {
        PATH: process.env['PATH'] ?? '',
        ROOT_ACCESS_KEY_ID: credentials.accessKeyId,
        ROOT_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const output = capture(child);
  const stop = supervise(child);
  try {
    // Any HTTP answer (an unsigned GET / is refused with 403) means it serves.
    await waitForHttp(`${endpoint}/`, () => true, child, output);
  } catch (error: unknown) {
    await stop();
    throw error;
  }
  const config: S3StoreConfig = { endpoint, region, credentials, pathStyle: true };
  return {
    endpoint,
    region,
    credentials,
    config,
    dataDir,
    pid: child.pid as number,
    storeConfig: (overrides = {}) => ({
      ...EMPTY_ARTIFACT_STORE_CONFIG,
      s3: config,
      idleTimeoutMs: 10_000,
      ...overrides,
    }),
    stop,
  };
}

export async function startOciRegistry(options: {
  readonly dataDir: string;
  readonly port?: number;
}): Promise<RunningOciRegistry> {
  const dataDir = resolve(options.dataDir, 'oci');
  const storage = join(dataDir, 'storage');
  mkdirSync(storage, { recursive: true });
  const port = options.port ?? (await unusedLoopbackPort());
  const url = `http://127.0.0.1:${port}`;
  const configFile = join(dataDir, 'config.yml');
  writeFileSync(
    configFile,
    [
      'version: 0.1',
      'log:',
      '  level: error',
      '  accesslog:',
      '    disabled: true',
      'storage:',
      '  filesystem:',
      `    rootdirectory: ${JSON.stringify(storage)}`,
      '  delete:',
      '    enabled: true',
      'http:',
      `  addr: 127.0.0.1:${port}`,
      // One process: a fixed secret only silences the multi-instance warning.
      `  secret: ${randomBytes(16).toString('hex')}`,
      '',
    ].join('\n'),
  );
  const child = spawn(ociRegistryBinary(), ['serve', configFile], {
    env: { PATH: process.env['PATH'] ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = capture(child);
  const stop = supervise(child);
  try {
    await waitForHttp(`${url}/v2/`, (status) => status === 200, child, output);
  } catch (error: unknown) {
    await stop();
    throw error;
  }
  const registry = `127.0.0.1:${port}`;
  return {
    url,
    registry,
    credentials: null,
    dataDir,
    pid: child.pid as number,
    blobDataFile: (digest) => {
      const hex = digest.replace(/^sha256:/, '');
      return join(storage, 'docker', 'registry', 'v2', 'blobs', 'sha256', hex.slice(0, 2), hex, 'data');
    },
    storeConfig: (overrides = {}) => ({
      ...EMPTY_ARTIFACT_STORE_CONFIG,
      idleTimeoutMs: 10_000,
      ...overrides,
    }),
    stop,
  };
}

/** Keeps the last few KiB of a child's output for error messages. */
function capture(child: ChildProcess): () => string {
  let tail = '';
  const keep = (chunk: Buffer): void => {
    tail = (tail + chunk.toString('utf8')).slice(-8192);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return () => tail;
}

/** Kills the child when the test process exits, and returns an idempotent graceful stop. */
function supervise(child: ChildProcess): () => Promise<void> {
  const exited = new Promise<void>((resolveExit) => {
    if (child.exitCode !== null || child.signalCode !== null) resolveExit();
    else child.once('exit', () => resolveExit());
  });
  const onExit = (): void => {
    child.kill('SIGKILL');
  };
  process.once('exit', onExit);
  let stopping: Promise<void> | null = null;
  return () => {
    stopping ??= (async () => {
      process.removeListener('exit', onExit);
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
        await exited;
        clearTimeout(timer);
      }
    })();
    return stopping;
  };
}

async function waitForHttp(
  url: string,
  ready: (status: number) => boolean,
  child: ChildProcess,
  output: () => string,
): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(
        `${child.spawnfile} exited (${child.exitCode ?? child.signalCode}) before serving:\n${output()}`,
      );
    }
    const status = await new Promise<number | null>((resolveStatus) => {
      const req = request(url, { method: 'GET', timeout: 1_000 }, (response) => {
        response.resume();
        resolveStatus(response.statusCode ?? null);
      });
      req.on('timeout', () => req.destroy());
      req.on('error', () => resolveStatus(null));
      req.end();
    });
    if (status !== null && ready(status)) return;
    if (Date.now() > deadline) {
      throw new Error(`${child.spawnfile} did not serve ${url} within ${READY_TIMEOUT_MS} ms:\n${output()}`);
    }
    await new Promise((resolveDelay) => setTimeout(resolveDelay, 100));
  }
}
