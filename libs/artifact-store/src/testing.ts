import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createPrivateKey, randomBytes, sign } from 'node:crypto';
import {
  accessSync,
  constants,
  createReadStream,
  mkdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer as createHttpServer, request } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { hashSync } from 'bcryptjs';
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
  /** The one user of an htpasswd-protected registry (`auth: 'htpasswd'`); null when it runs without authentication. */
  readonly credentials: { readonly username: string; readonly password: string } | null;
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

/**
 * Starts the S3-compatible server over `<dataDir>/s3`. Starting it again with
 * the same dataDir, port and credentials (a "restart" after a test killed
 * it) serves the same buckets and objects.
 */
export async function startS3Server(options: {
  readonly dataDir: string;
  readonly port?: number;
  readonly region?: string;
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
}): Promise<RunningS3Server> {
  const dataDir = resolve(options.dataDir, 's3');
  mkdirSync(dataDir, { recursive: true });
  const region = options.region ?? 'us-east-1';
  const credentials = options.credentials ?? {
    accessKeyId: `LUNANEXATEST${randomBytes(4).toString('hex').toUpperCase()}`,
    secretAccessKey: randomBytes(24).toString('base64url'),
  };
  const port = options.port ?? (await unusedLoopbackPort());
  const endpoint = `http://127.0.0.1:${port}`;
  // Credentials through the environment, not argv: /proc/<pid>/cmdline is world-readable.
  // Metadata (ETags of multipart parts) in extended attributes: multipart upload needs it.
  const child = spawn(
    s3ServerBinary(),
    ['--port', `127.0.0.1:${port}`, '--region', region, '--quiet', 'posix', dataDir],
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

/**
 * Starts the distribution registry over `<dataDir>/oci` (`oci-<auth>` with
 * authentication). `auth: 'htpasswd'`: every request needs HTTP basic
 * credentials of one generated user, checked by the registry against a
 * bcrypt htpasswd file. `auth: 'token'`: the Docker token flow — the registry
 * answers 401 with a Bearer challenge naming a token service (a node:http
 * server started here, which wants the same basic credentials and issues
 * ES256 JWTs granting the scope asked for), and verifies the tokens against
 * the service's certificate (`rootcertbundle`).
 */
export async function startOciRegistry(options: {
  readonly dataDir: string;
  readonly port?: number;
  readonly auth?: 'htpasswd' | 'token';
}): Promise<RunningOciRegistry> {
  const dataDir = resolve(options.dataDir, options.auth === undefined ? 'oci' : `oci-${options.auth}`);
  const storage = join(dataDir, 'storage');
  mkdirSync(storage, { recursive: true });
  const port = options.port ?? (await unusedLoopbackPort());
  const url = `http://127.0.0.1:${port}`;
  const configFile = join(dataDir, 'config.yml');
  let credentials: { username: string; password: string } | null = null;
  const authLines: string[] = [];
  if (options.auth === 'htpasswd') {
    credentials = { username: 'puller', password: randomBytes(18).toString('base64url') };
    const htpasswd = join(dataDir, 'htpasswd');
    writeFileSync(htpasswd, `${credentials.username}:${hashSync(credentials.password, 10)}\n`, {
      mode: 0o600,
    });
    authLines.push(
      'auth:',
      '  htpasswd:',
      '    realm: lunanexa-test',
      `    path: ${JSON.stringify(htpasswd)}`,
    );
  }
  let tokenService: TokenService | null = null;
  if (options.auth === 'token') {
    credentials = { username: 'puller', password: randomBytes(18).toString('base64url') };
    tokenService = await startTokenService(join(dataDir, 'token-service'), credentials);
    authLines.push(
      'auth:',
      '  token:',
      `    realm: ${tokenService.realm}`,
      `    service: ${TOKEN_SERVICE_NAME}`,
      `    issuer: ${TOKEN_ISSUER}`,
      `    rootcertbundle: ${JSON.stringify(tokenService.certificateFile)}`,
    );
  }
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
      ...authLines,
      '',
    ].join('\n'),
  );
  const child = spawn(ociRegistryBinary(), ['serve', configFile], {
    env: { PATH: process.env['PATH'] ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = capture(child);
  const stopRegistry = supervise(child);
  const stop = async (): Promise<void> => {
    await stopRegistry();
    await tokenService?.stop();
  };
  try {
    // 401 is how a registry with authentication says it serves.
    await waitForHttp(
      `${url}/v2/`,
      (status) => status === (options.auth === undefined ? 200 : 401),
      child,
      output,
    );
  } catch (error: unknown) {
    await stop();
    throw error;
  }
  const registry = `127.0.0.1:${port}`;
  return {
    url,
    registry,
    credentials,
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

export interface RunningHttpsServer {
  /** `https://127.0.0.1:<port>`; a file `<root>/a/b` is served at `<origin>/a/b`. */
  readonly origin: string;
  /** The directory served. */
  readonly root: string;
  /** The PEM certificate of the private CA that signed the server's certificate (trust it to connect). */
  readonly caPem: string;
  /** Every request's path and Range header, in order (what a resumed download asked for). */
  readonly requests: readonly { readonly path: string; readonly range: string | null }[];
  /** An ArtifactStoreConfig trusting the CA (and nothing else configured). */
  storeConfig(overrides?: Partial<ArtifactStoreConfig>): ArtifactStoreConfig;
  stop(): Promise<void>;
}

/**
 * A real HTTPS file server for https:// artifacts: node:https with a
 * certificate for 127.0.0.1 signed by a private CA made here with openssl
 * (the CA and the keys live in `<dataDir>/https/tls`, valid for two days).
 * Serves files under `<dataDir>/https/root` with single `bytes=N-` ranges
 * (206) and redirects `/redirect/<path>` to `/<path>`.
 */
export async function startHttpsArtifactServer(options: {
  readonly dataDir: string;
}): Promise<RunningHttpsServer> {
  const base = resolve(options.dataDir, 'https');
  const tls = join(base, 'tls');
  const root = join(base, 'root');
  mkdirSync(tls, { recursive: true });
  mkdirSync(root, { recursive: true });
  const openssl = (...args: string[]): void => {
    execFileSync('openssl', args, { cwd: tls, stdio: ['ignore', 'ignore', 'pipe'] });
  };
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=LunaNexa test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );
  openssl('req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1');
  writeFileSync(
    join(tls, 'server.ext'),
    'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n',
  );
  openssl(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.pem',
    '-days',
    '2',
    '-extfile',
    'server.ext',
  );
  const caPem = readFileSync(join(tls, 'ca.pem'), 'utf8');
  const requests: { path: string; range: string | null }[] = [];
  const server = createHttpsServer(
    { key: readFileSync(join(tls, 'server.key')), cert: readFileSync(join(tls, 'server.pem')) },
    (req, res) => {
      const path = decodeURIComponent(new URL(req.url ?? '/', 'https://x').pathname);
      const range = req.headers.range ?? null;
      requests.push({ path, range });
      if (path.startsWith('/redirect/')) {
        res.writeHead(302, { location: path.slice('/redirect'.length) }).end();
        return;
      }
      const file = resolve(root, `.${path}`);
      let size: number;
      try {
        const found = statSync(file);
        if (!file.startsWith(`${root}/`) || !found.isFile()) throw new Error('not a file');
        size = found.size;
      } catch {
        res.writeHead(404).end();
        return;
      }
      const from = range === null ? null : /^bytes=([0-9]+)-$/.exec(range)?.[1];
      if (from !== undefined && from !== null) {
        const start = Number(from);
        if (start >= size) {
          res.writeHead(416, { 'content-range': `bytes */${size}` }).end();
          return;
        }
        res.writeHead(206, {
          'content-length': String(size - start),
          'content-range': `bytes ${start}-${size - 1}/${size}`,
        });
        createReadStream(file, { start }).pipe(res);
        return;
      }
      res.writeHead(200, { 'content-length': String(size), 'accept-ranges': 'bytes' });
      createReadStream(file).pipe(res);
    },
  );
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolveListen());
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    origin: `https://127.0.0.1:${port}`,
    root,
    caPem,
    requests,
    storeConfig: (overrides = {}) => ({
      ...EMPTY_ARTIFACT_STORE_CONFIG,
      https: { ...EMPTY_ARTIFACT_STORE_CONFIG.https, extraCaPem: caPem },
      idleTimeoutMs: 10_000,
      ...overrides,
    }),
    stop: () =>
      new Promise<void>((resolveClose) => {
        server.closeAllConnections();
        server.close(() => resolveClose());
      }),
  };
}

const TOKEN_SERVICE_NAME = 'lunanexa-test-registry';
const TOKEN_ISSUER = 'lunanexa-test-token-service';

interface TokenService {
  /** `http://127.0.0.1:<port>/token` */
  readonly realm: string;
  /** The PEM certificate whose key signs the tokens (the registry's rootcertbundle). */
  readonly certificateFile: string;
  stop(): Promise<void>;
}

/**
 * A Docker registry token service: `GET /token?service=…&scope=repository:<name>:<actions>`
 * with HTTP basic credentials answers `{ token }`, an ES256 JWT whose `x5c`
 * header carries the signing certificate; wrong or missing credentials get 401.
 */
async function startTokenService(
  directory: string,
  credentials: { readonly username: string; readonly password: string },
): Promise<TokenService> {
  mkdirSync(directory, { recursive: true });
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      'token.key',
      '-out',
      'token.pem',
      '-days',
      '2',
      '-subj',
      '/CN=LunaNexa test token service',
    ],
    { cwd: directory, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const certificatePem = readFileSync(join(directory, 'token.pem'), 'utf8');
  const key = createPrivateKey(readFileSync(join(directory, 'token.key')));
  const certificateDer = certificatePem.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, '');
  const expected = `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`;
  const server = createHttpServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname !== '/token') {
      res.writeHead(404).end();
      return;
    }
    if (req.headers.authorization !== expected) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="lunanexa-test-token-service"' }).end();
      return;
    }
    const access = url.searchParams.getAll('scope').flatMap((scope) => {
      const match = /^repository:([^:]+):([a-z,*]+)$/.exec(scope);
      return match === null
        ? []
        : [{ type: 'repository', name: match[1], actions: (match[2] ?? '').split(',') }];
    });
    const now = Math.floor(Date.now() / 1000);
    const encode = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
    const unsigned = `${encode({ alg: 'ES256', typ: 'JWT', x5c: [certificateDer] })}.${encode({
      iss: TOKEN_ISSUER,
      sub: credentials.username,
      aud: url.searchParams.get('service') ?? TOKEN_SERVICE_NAME,
      iat: now - 5,
      nbf: now - 5,
      exp: now + 300,
      jti: randomBytes(8).toString('hex'),
      access,
    })}`;
    const signature = sign('sha256', Buffer.from(unsigned), { key, dsaEncoding: 'ieee-p1363' });
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ token: `${unsigned}.${signature.toString('base64url')}`, expires_in: 300 }));
  });
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolveListen());
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    realm: `http://127.0.0.1:${port}/token`,
    certificateFile: join(directory, 'token.pem'),
    stop: () =>
      new Promise<void>((resolveClose) => {
        server.closeAllConnections();
        server.close(() => resolveClose());
      }),
  };
}
