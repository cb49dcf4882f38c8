import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import {
  connectAsTestAppRole,
  createScratchDatabase,
  runMigrations,
  type ScratchDatabase,
  type Queryable,
} from '@lunanexa/persistence';
import { RUNTIME_OWNER_ENV, runtimeOwnerTag } from '@lunanexa/agent';
import { Client } from 'pg';
import { recordWorkflowHistories, recordingHistories } from './record-histories';
import { REPO_ROOT, freePort, processesUsing } from './stack-process';
import { startTestTemporal } from './temporal-test-env';

/** Where `npm run build:console` puts the console the api serves. */
export const CONSOLE_DIR = join(REPO_ROOT, 'console', 'dist', 'browser');

/**
 * The whole control plane as separate processes, so a test can `kill -9` any
 * of them: a real Temporal dev server, a migrated scratch database on real
 * PostgreSQL, and the api, worker, gateway and agents started from their
 * built entry points exactly as the launcher starts them.
 */

export interface GraphQLAnswer<T = Record<string, unknown>> {
  readonly data?: T | null;
  readonly errors?: { message: string; extensions?: { code?: string } }[];
}

export class GraphQLFailure extends Error {
  constructor(
    readonly code: string | undefined,
    message: string,
  ) {
    super(`${code ?? 'ERROR'}: ${message}`);
  }
}

export interface ServiceProcess {
  readonly name: string;
  readonly child: ChildProcess;
  readonly logFile: string;
  readonly exited: Promise<number | null>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export interface AgentProcess {
  readonly name: string;
  readonly configFile: string;
  readonly stateDir: string;
  readonly httpPort: number;
  readonly sshPort: number;
  readonly service: ServiceProcess;
}

function startProcess(
  name: string,
  entry: string,
  args: readonly string[],
  env: Record<string, string | undefined>,
  logDir: string,
  root: string = REPO_ROOT,
  serviceNodeArgs: readonly string[] = [],
): ServiceProcess {
  const logFile = join(logDir, `${name}.log`);
  const fd = openSync(logFile, 'a');
  // e.g. LUNANEXA_E2E_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" to profile every service of a run.
  const nodeArgs = [
    ...(process.env['LUNANEXA_E2E_NODE_ARGS'] ?? '').split(' ').filter(Boolean),
    ...serviceNodeArgs,
  ];
  const child = spawn(process.execPath, [...nodeArgs, '--enable-source-maps', join(root, entry), ...args], {
    cwd: root,
    env: env,
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    name,
    child,
    logFile,
    exited,
    async kill(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

export function tail(file: string, lines = 40): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

export async function waitUntil<T>(
  description: string,
  probe: () => Promise<T | undefined | null | false>,
  timeoutMs = 60_000,
  intervalMs = 250,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== null && value !== false) return value;
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${description}${last ? `: ${last}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Data directories of the harnesses this test process runs; their agents' runtimes are the ones it may see. */
const liveHarnessDirs = new Set<string>();

/** The owner tags (see `runtimeOwnerTag`) of every agent a live harness of this process started. */
function ownTestRuntimeTags(): Set<string> {
  const tags = new Set<string>();
  for (const dataDir of liveHarnessDirs) {
    const agentsDir = join(dataDir, 'agents');
    if (!existsSync(agentsDir)) continue;
    for (const node of readdirSync(agentsDir))
      tags.add(`${RUNTIME_OWNER_ENV}=${runtimeOwnerTag(join(agentsDir, node, 'state'))}`);
  }
  return tags;
}

/**
 * Pids of live fake-runtime processes serving `servedModel` (their command
 * line names it) that this process's own harness agents started: test files
 * running side by side serve the same model names, and one must never count or
 * kill the other's runtimes.
 */
export function fakeRuntimeProcesses(servedModel: string): number[] {
  const owners = ownTestRuntimeTags();
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (!argv.some((arg) => arg.includes('fake-runtime')) || !argv.includes(servedModel)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // A zombie has exited: it serves nothing.
      if (/\) Z /.test(stat)) continue;
      const environment = readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0');
      if (environment.some((variable) => owners.has(variable))) pids.push(Number(entry));
    } catch {
      // exited while we looked
    }
  }
  return pids;
}

/** What `npm start` runs the Temporal dev server at (scripts/lib/stack.mjs, LUNANEXA_TEMPORAL_NICE's default). */
const STACK_TEMPORAL_NICE = 10;

export interface FleetHarnessOptions {
  readonly leaseSeconds?: number;
  /** Serve the built console (`npm run build:console`) at `/`; off by default, as tests without a browser need none. */
  readonly serveConsole?: boolean;
  /** The first admin's credentials, for signing in through the console; without them its password is random. */
  readonly admin?: { readonly username: string; readonly password: string };
  /** Run the Temporal UI too (at `temporalUiUrl`), so receipts' workflow links can be followed. */
  readonly temporalUi?: boolean;
  /**
   * The Temporal dev server's CPU priority (nice); default what `npm start` gives it (LUNANEXA_TEMPORAL_NICE,
   * 10). The worker's is LUNANEXA_WORKER_NICE in `extraEnv` (default 10 too).
   */
  readonly temporalNice?: number;
  /**
   * Extra environment for the api, worker, gateway and every agent: the
   * artifact store variables (LUNANEXA_S3_*), say, which each of them reads.
   */
  readonly extraEnv?: Readonly<Record<string, string>>;
  /**
   * Run the api, worker and gateway as the application role (what
   * `lunanexa_app` is in production: rows, no schema, audit append-only)
   * instead of the database owner. Migrations still run as the owner.
   */
  readonly asAppRole?: boolean;
  /**
   * The PostgreSQL server (admin URL) the scratch database is created on;
   * default the test server. The backup test needs one the PATH's pg_dump
   * can dump (pgToolsServer).
   */
  readonly postgresAdminUrl?: string;
  /**
   * Where the services, agents, migrations and first admin start from: a
   * previous release's built tree (previousReleaseRoot), for the upgrade
   * test; default this tree. `releaseRoot` moves later starts to another.
   */
  readonly releaseRoot?: string;
  /**
   * Node.js flags for the gateway alone: `--gc-global` makes every collection a full one, so a memory test
   * reads the live set after each instead of waiting for V8 to choose a full collection on its own.
   */
  readonly gatewayNodeArgs?: readonly string[];
}

export class FleetHarness {
  readonly logDir: string;
  readonly taskQueue = `fleet-${Date.now().toString(36)}`;
  apiUrl = '';
  gatewayUrl = '';
  /** The Temporal UI the api links workflows to; only serving when started with `temporalUi`. */
  temporalUiUrl = '';
  adminToken = '';
  /** The local operator token (what the CLI uses day to day). */
  operatorToken = '';
  api: ServiceProcess | null = null;
  worker: ServiceProcess | null = null;
  gateway: ServiceProcess | null = null;
  readonly agents = new Map<string, AgentProcess>();
  private apiPort = 0;
  private workerPort = 0;
  private gatewayPort = 0;
  /** The tree the next api, worker, gateway or agent start runs from (FleetHarnessOptions.releaseRoot). */
  releaseRoot: string = REPO_ROOT;

  /** Where the api and worker keep the controller's state (its key); `replaceController` moves it. */
  controllerDataDir: string;

  private constructor(
    /** The fleet's name: its scratch database's, its data directory's and its recorded histories'. */
    readonly name: string,
    readonly dataDir: string,
    /** Replaced, with the database, by `replaceController`. */
    public temporal: TestWorkflowEnvironment,
    public db: ScratchDatabase,
    readonly options: {
      readonly leaseSeconds: number;
      readonly temporalNice: number;
      readonly serveConsole: boolean;
      readonly extraEnv: Readonly<Record<string, string>>;
      readonly gatewayNodeArgs: readonly string[];
      /** What the services' DATABASE_URL is: the owner's, or the application role's. */
      serviceDatabaseUrl: string;
    },
  ) {
    this.controllerDataDir = dataDir;
    this.logDir = join(dataDir, 'logs');
    mkdirSync(this.logDir, { recursive: true });
  }

  static async start(name: string, options: FleetHarnessOptions = {}): Promise<FleetHarness> {
    if (options.serveConsole && !existsSync(join(CONSOLE_DIR, 'index.html')))
      throw new Error(`${CONSOLE_DIR} has no index.html: run \`npm run build:console\` first`);
    const dataDir = mkdtempSync(join(tmpdir(), `lunanexa-${name}-`));
    liveHarnessDirs.add(dataDir);
    const uiPort = options.temporalUi ? await freePort() : undefined;
    const temporalNice = options.temporalNice ?? STACK_TEMPORAL_NICE;
    const [temporal, db] = await Promise.all([
      startTestTemporal({ ...(uiPort === undefined ? {} : { uiPort }), nice: temporalNice }),
      createScratchDatabase(name, options.postgresAdminUrl),
    ]);
    const releaseRoot = options.releaseRoot ?? REPO_ROOT;
    if (releaseRoot === REPO_ROOT) await runMigrations(db.url);
    else {
      const migrate = spawnSync(
        process.execPath,
        [join(releaseRoot, 'libs/persistence/dist/src/migrate-main.js')],
        {
          env: { PATH: process.env['PATH'] ?? '', DATABASE_URL: db.url },
          encoding: 'utf8',
          timeout: 120_000,
        },
      );
      if (migrate.status !== 0) throw new Error(`migrations of ${releaseRoot} failed: ${migrate.stderr}`);
    }
    const harness = new FleetHarness(name, dataDir, temporal, db, {
      leaseSeconds: options.leaseSeconds ?? 60,
      temporalNice,
      serveConsole: options.serveConsole ?? false,
      extraEnv: options.extraEnv ?? {},
      gatewayNodeArgs: options.gatewayNodeArgs ?? [],
      serviceDatabaseUrl: options.asAppRole ? await connectAsTestAppRole(db) : db.url,
    });
    [harness.apiPort, harness.workerPort, harness.gatewayPort] = [
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    harness.apiUrl = `http://127.0.0.1:${harness.apiPort}`;
    harness.gatewayUrl = `http://127.0.0.1:${harness.gatewayPort}`;
    harness.temporalUiUrl = `http://127.0.0.1:${uiPort ?? 8233}`;
    const tokenFile = join(dataDir, 'controller', 'operator.token');
    const adminTokenFile = join(dataDir, 'controller', 'admin.token');
    harness.releaseRoot = releaseRoot;
    const admin = spawnSync(process.execPath, [join(releaseRoot, 'apps/api/dist/src/first-admin-main.js')], {
      env: {
        PATH: process.env['PATH'] ?? '',
        DATABASE_URL: db.url,
        LUNANEXA_LOCAL_TOKEN_FILE: tokenFile,
        LUNANEXA_LOCAL_ADMIN_TOKEN_FILE: adminTokenFile,
        ...(options.admin
          ? {
              LUNANEXA_ADMIN_USERNAME: options.admin.username,
              LUNANEXA_ADMIN_PASSWORD: options.admin.password,
            }
          : {}),
      },
      encoding: 'utf8',
      timeout: 60_000,
    });
    if (admin.status !== 0) throw new Error(`first admin failed: ${admin.stderr}`);
    harness.adminToken = readFileSync(adminTokenFile, 'utf8').trim();
    harness.operatorToken = readFileSync(tokenFile, 'utf8').trim();
    await harness.startWorker();
    await harness.startApi();
    await harness.startGateway();
    return harness;
  }

  private serviceEnv(): Record<string, string | undefined> {
    return {
      PATH: process.env['PATH'],
      HOME: process.env['HOME'],
      DATABASE_URL: this.options.serviceDatabaseUrl,
      TEMPORAL_ADDRESS: this.temporal.address,
      TEMPORAL_NAMESPACE: this.temporal.namespace ?? 'default',
      LUNANEXA_TASK_QUEUE: this.taskQueue,
      LUNANEXA_DATA_DIR: this.controllerDataDir,
      LUNANEXA_LOG_LEVEL: 'info',
      LUNANEXA_API_HOST: '127.0.0.1',
      LUNANEXA_API_PORT: String(this.apiPort),
      LUNANEXA_WORKER_PORT: String(this.workerPort),
      LUNANEXA_GATEWAY_PORT: String(this.gatewayPort),
      // One gateway process: tests kill, profile and read the metrics of the process they started.
      LUNANEXA_GATEWAY_WORKERS: '1',
      LUNANEXA_TEMPORAL_UI_URL: this.temporalUiUrl,
      LUNANEXA_CONSOLE_DIR: this.options.serveConsole ? CONSOLE_DIR : join(this.dataDir, 'no-console'),
      LUNANEXA_WORKFLOW_WAIT_MS: '60000',
      LUNANEXA_ASSIGNMENT_LEASE_SECONDS: String(this.options.leaseSeconds),
      ...this.options.extraEnv,
    };
  }

  private async ready(service: ServiceProcess, url: string): Promise<void> {
    let exited: number | null | undefined;
    void service.exited.then((code) => (exited = code));
    await waitUntil(
      `${service.name} at ${url}`,
      async () => {
        if (exited !== undefined)
          throw new Error(`${service.name} exited ${String(exited)}:\n${tail(service.logFile)}`);
        const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
        await response.arrayBuffer();
        return response.ok;
      },
      90_000,
    ).catch((error: unknown) => {
      throw new Error(`${error instanceof Error ? error.message : String(error)}\n${tail(service.logFile)}`);
    });
  }

  async startApi(): Promise<void> {
    this.api = startProcess(
      'api',
      'apps/api/dist/src/main.js',
      [],
      this.serviceEnv(),
      this.logDir,
      this.releaseRoot,
    );
    await this.ready(this.api, `${this.apiUrl}/ready`);
  }

  /** The worker's own small server (/health, /ready, /metrics). */
  get workerUrl(): string {
    return `http://127.0.0.1:${this.workerPort}`;
  }

  async startWorker(logName = 'worker'): Promise<void> {
    this.worker = startProcess(
      logName,
      'apps/worker/dist/src/main.js',
      [],
      this.serviceEnv(),
      this.logDir,
      this.releaseRoot,
    );
    await this.ready(this.worker, `http://127.0.0.1:${this.workerPort}/ready`);
  }

  async startGateway(logName = 'gateway'): Promise<void> {
    this.gateway = startProcess(
      logName,
      'apps/gateway/dist/src/main.js',
      [],
      this.serviceEnv(),
      this.logDir,
      this.releaseRoot,
      this.options.gatewayNodeArgs,
    );
    await this.ready(this.gateway, `${this.gatewayUrl}/ready`);
  }

  /** Fetch options calling the gateway as the local operator (operators may name model@version). */
  asOperator(init: RequestInit = {}): RequestInit {
    return {
      ...init,
      headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${this.operatorToken}` },
    };
  }

  async graphql<T = Record<string, unknown>>(
    query: string,
    variables: Record<string, unknown> = {},
    token: string = this.adminToken,
  ): Promise<T> {
    const response = await fetch(`${this.apiUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query, variables }),
      signal: AbortSignal.timeout(120_000),
    });
    const body = (await response.json()) as GraphQLAnswer<T>;
    const first = body.errors?.[0];
    if (first) throw new GraphQLFailure(first.extensions?.code, first.message);
    if (!body.data) throw new Error('no data');
    return body.data;
  }

  private fingerprint: string | null = null;

  /** The controller key fingerprint agents pin (asked once: agents restart while the API is down, too). */
  async controllerFingerprint(): Promise<string> {
    if (this.fingerprint === null) {
      const data = await this.graphql<{ controllerIdentity: { sshFingerprint: string } }>(
        '{ controllerIdentity { sshFingerprint } }',
      );
      this.fingerprint = data.controllerIdentity.sshFingerprint;
    }
    return this.fingerprint;
  }

  /**
   * Writes an agent config (simulated DGX Spark, SSH on loopback) and starts
   * the agent; a token enrolls it; `options` move a restarted agent to
   * another SSH port, or route it to the API through something else.
   */
  async startAgent(
    name: string,
    bootstrapToken?: string,
    options: {
      /** Moves a restarted agent to another SSH port. */
      readonly sshPort?: number;
      /** Where the agent finds the API, when a test puts something between them. */
      readonly controllerUrl?: string;
    } = {},
  ): Promise<AgentProcess> {
    const existing = this.agents.get(name);
    const dir = join(this.dataDir, 'agents', name);
    mkdirSync(dir, { recursive: true });
    const httpPort = existing?.httpPort ?? (await freePort());
    // A restart keeps its ports unless the test moves the agent.
    const sshPort = options.sshPort ?? existing?.sshPort ?? (await freePort());
    const configFile = join(dir, 'agent.json');
    const stateDir = join(dir, 'state');
    writeFileSync(
      configFile,
      JSON.stringify(
        {
          nodeName: name,
          listen: { host: '127.0.0.1', port: httpPort },
          dataDir: stateDir,
          controllerUrl: options.controllerUrl ?? this.apiUrl,
          controllerKeyFingerprint: await this.controllerFingerprint(),
          ssh: { host: '127.0.0.1', port: sshPort },
          inventory: { source: 'simulated', profile: 'dgx-spark' },
          labels: { 'lunanexa.io/simulated': 'true' },
        },
        null,
        2,
      ),
    );
    const env = {
      PATH: process.env['PATH'],
      HOME: process.env['HOME'],
      ...this.options.extraEnv,
      ...(bootstrapToken ? { LUNANEXA_BOOTSTRAP_TOKEN: bootstrapToken } : {}),
    };
    const service = startProcess(
      `agent-${name}`,
      'apps/agent/dist/src/main.js',
      ['--config', configFile],
      env,
      this.logDir,
      this.releaseRoot,
    );
    const agent: AgentProcess = { name, configFile, stateDir, httpPort, sshPort, service };
    this.agents.set(name, agent);
    await this.ready(service, `http://127.0.0.1:${httpPort}/health`);
    return agent;
  }

  /**
   * Enrolls a simulated DGX Spark under `name` with an auto-approving
   * bootstrap token and waits until the node is Active and Ready: the one
   * node most fleet scenarios start from.
   */
  async startReadyAgent(name: string): Promise<AgentProcess> {
    const agent = await this.startAgent(name, await this.createBootstrapToken(name, true));
    await waitUntil(
      `${name} Active and Ready (agent log: ${join(this.logDir, `agent-${name}.log`)})`,
      async () => {
        const data = await this.graphql<{ node: { lifecycle: string; readiness: string } | null }>(
          `query($n: String!) { node(node: $n) { lifecycle readiness } }`,
          { n: name },
        );
        return data.node?.lifecycle === 'Active' && data.node.readiness === 'Ready';
      },
      90_000,
    );
    return agent;
  }

  async createBootstrapToken(nodeName: string, autoApprove = false): Promise<string> {
    const data = await this.graphql<{ createBootstrapToken: { token: string } }>(
      `mutation($input: CreateBootstrapTokenInput!) { createBootstrapToken(input: $input) { token } }`,
      { input: { nodeName, autoApprove } },
    );
    return data.createBootstrapToken.token;
  }

  async sql<T = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<T[]> {
    const client = new Client({ connectionString: this.db.url });
    await client.connect();
    try {
      return (await client.query(text, params)).rows as T[];
    } finally {
      await client.end();
    }
  }

  /** The fleet's database as libs/persistence functions take it (each call on its own connection, like `sql`). */
  queryable(): Queryable {
    return { query: <T>(text: string, params?: unknown[]) => this.sql(text, params) as Promise<T> };
  }

  /**
   * The controller host is lost and a clean one takes its place: api, worker
   * and gateway are killed (SIGKILL, nothing finishes), Temporal goes with
   * them; a new Temporal (no history) starts, and api, worker and gateway
   * start on the same addresses (what agents and callers know) against
   * `database` (a restored one), with a new data directory that holds only
   * the controller key (restored from wherever its secret is kept: agents
   * pin its fingerprint). Agents and their runtimes keep running throughout.
   */
  async replaceController(database: ScratchDatabase): Promise<void> {
    for (const service of [this.gateway, this.api, this.worker]) await service?.kill('SIGKILL');
    await this.temporal.teardown();
    const keyFile = join(this.controllerDataDir, 'controller', 'controller-ed25519.pem');
    this.controllerDataDir = join(this.dataDir, `controller-${Date.now().toString(36)}`);
    mkdirSync(join(this.controllerDataDir, 'controller'), { recursive: true, mode: 0o700 });
    copyFileSync(keyFile, join(this.controllerDataDir, 'controller', 'controller-ed25519.pem'));
    chmodSync(join(this.controllerDataDir, 'controller', 'controller-ed25519.pem'), 0o600);
    this.temporal = await startTestTemporal({ nice: this.options.temporalNice });
    this.db = database;
    this.options.serviceDatabaseUrl = database.url;
    await this.startWorker();
    await this.startApi();
    await this.startGateway();
  }

  /**
   * A rolling replacement's first half, as behind a load balancer: another
   * worker or gateway starts from `releaseRoot` on a fresh port beside the
   * running one and becomes `worker`/`gateway` once ready. Returns the
   * previous one, still running: the caller takes it out of rotation and stops it.
   */
  async startBeside(
    service: 'worker' | 'gateway',
  ): Promise<{ previous: ServiceProcess | null; previousUrl: string }> {
    if (service === 'worker') {
      const previous = this.worker;
      const previousUrl = this.workerUrl;
      this.workerPort = await freePort();
      await this.startWorker(`worker-${this.workerPort}`);
      return { previous, previousUrl };
    }
    const previous = this.gateway;
    const previousUrl = this.gatewayUrl;
    this.gatewayPort = await freePort();
    this.gatewayUrl = `http://127.0.0.1:${this.gatewayPort}`;
    await this.startGateway(`gateway-${this.gatewayPort}`);
    return { previous, previousUrl };
  }

  logsOf(name: string): string {
    return tail(join(this.logDir, `${name}.log`), 80);
  }

  async stop(): Promise<void> {
    for (const agent of this.agents.values()) await agent.service.kill('SIGTERM');
    // Agents leave their runtimes serving by design (the next start adopts them); a finished test has no next start.
    for (const leftover of processesUsing(this.dataDir)) stopProcessGroup(leftover.pid);
    await this.gateway?.kill('SIGTERM');
    await this.api?.kill('SIGTERM');
    await this.worker?.kill('SIGTERM');
    if (recordingHistories()) await recordWorkflowHistories(this.temporal.client, this.name);
    await this.temporal.teardown();
    await this.db.drop();
    liveHarnessDirs.delete(this.dataDir);
    if (!process.env['LUNANEXA_KEEP_TEST_DATA']) rmSync(this.dataDir, { recursive: true, force: true });
  }
}

/** SIGKILL to a runtime's process group (it leads its own), or to the process when it leads none. */
function stopProcessGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}
