#!/usr/bin/env node
/**
 * `npm run bench`: what the data plane costs, measured in one run against
 * one fake runtime process (no time to first token, a million tokens/s, so
 * the runtime itself costs next to nothing) through three targets:
 *
 * - direct: the runtime itself, the baseline;
 * - nginx: `proxy_pass` with buffering off, `--processes` worker processes (1);
 * - gateway: apps/gateway/dist/src/main.js as deployed, `--processes` worker
 *   processes (1: a single process, no cluster primary), on a scratch
 *   PostgreSQL database the bench migrates and seeds, so routes, credentials,
 *   tenant quotas and request records go through the real code paths.
 *
 * The load generator is its own process (load-generator.ts). Per scenario
 * (streamed or not × concurrency) every target gets a warm-up, then rounds
 * of timed runs with the targets alternating so drift hits all of them
 * alike; the figures are medians over rounds. Around every timed run the
 * CPU time of each target's process tree is read from /proc, so the CPU
 * cost of a request is known whatever else the machine was doing. Results
 * go to bench/results/data-plane.json (data-plane-processes.json with
 * `--processes` above 1), a table to stdout.
 *
 *   npm run bench -- --duration-ms 2000 --rounds 1 --concurrency 1,10 --only direct,gateway
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release, tmpdir, totalmem } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from 'pg';
import { FAKE_RUNTIME_MAIN } from '@lunanexa/fake-runtime';
import { findRepoRoot } from '@lunanexa/observability';
import {
  createScratchDatabase,
  queryableClient,
  requestRecordCountsByOutcome,
  runMigrations,
  serverVersion as postgresServerVersion,
} from '@lunanexa/persistence';
import { profilesUnder, topOfProfileFile } from './cpu-profile-top';
import { processTreeCpuMs } from './cpu-time';
import type { LoadReply, RunCommand, RunResult } from './load-protocol';
import { NGINX_LAYOUT, ensureNginx, nginxVersion, startNginx } from './nginx';
import { BENCH_USAGE, type BenchOptions, BenchUsageError, parseBenchArgs } from './options';
import { startBenchPostgres } from './postgres';
import { type StartedProcess, freePort, httpCall, startProcess, stopAll, waitForHttp } from './processes';
import { type DataPlaneResult, renderTable, scenarioName } from './report';
import {
  ANONYMOUS_CALLER,
  BENCH_MODEL_REF,
  type BenchCaller,
  MAX_TOKENS,
  chatBody,
  seedCaller,
  seedRoute,
} from './seed';
import {
  type RunFigures,
  type ScenarioFigures,
  type Target,
  type TargetFigures,
  combineRounds,
  deriveFigures,
  evaluateTargets,
  median,
} from './stats';

const RUNTIME_TOKENS_PER_SECOND = 1_000_000;
/** Untimed requests per connection at the start of every run (opens the connections). */
const PRIME_PER_CONNECTION = 2;
/** The gateway's default level: what a deployed gateway logs. */
const GATEWAY_LOG_LEVEL = 'info';
const CHAT_PATH = '/v1/chat/completions';

const log = (line: string): void => {
  process.stderr.write(`[bench] ${line}\n`);
};

/** Steps to undo what was started, run newest first exactly once (at the end, or on SIGINT/SIGTERM). */
class Teardown {
  private readonly steps: (() => Promise<void> | void)[] = [];
  private running: Promise<void> | undefined;

  add(step: () => Promise<void> | void): void {
    this.steps.push(step);
  }

  run(): Promise<void> {
    this.running ??= (async () => {
      for (const step of this.steps.reverse()) {
        try {
          await step();
        } catch (error: unknown) {
          log(`teardown: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      await stopAll();
    })();
    return this.running;
  }
}

/** The load generator child: one JSON command per line in, one JSON result per line out. */
class LoadGenerator {
  private nextId = 1;
  private readonly waiting = new Map<number, (reply: LoadReply) => void>();
  private readonly stderr: string[] = [];

  private constructor(private readonly started: StartedProcess) {
    const { stdout, stderr } = started.child;
    if (stdout === null || stderr === null) throw new Error('the load generator has no stdio pipes');
    createInterface({ input: stdout, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (line) => {
      const reply = JSON.parse(line) as LoadReply;
      this.waiting.get(reply.id)?.(reply);
      this.waiting.delete(reply.id);
    });
    stderr.on('data', (chunk: Buffer) => this.stderr.push(chunk.toString('utf8')));
  }

  static start(): LoadGenerator {
    return new LoadGenerator(
      startProcess({
        name: 'load generator',
        command: process.execPath,
        args: [join(__dirname, 'load-generator.js')],
        logFile: null,
      }),
    );
  }

  run(command: Omit<RunCommand, 'type' | 'id'>): Promise<RunResult> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      void this.started.exited.then(() =>
        reject(new Error(`the load generator exited during a run: ${this.stderr.join('').trim()}`)),
      );
      this.waiting.set(id, (reply) => {
        if (reply.type === 'result') resolve(reply);
        else reject(new Error(`load generator: ${reply.message}`));
      });
      this.started.child.stdin?.write(`${JSON.stringify({ type: 'run', id, ...command })}\n`);
    });
  }

  async stop(): Promise<void> {
    this.started.child.stdin?.end(`${JSON.stringify({ type: 'exit' })}\n`);
    await this.started.stop(5_000);
  }
}

interface Endpoint {
  readonly target: Target;
  readonly url: string;
  /** The `model` named in this target's requests. */
  readonly model: string;
  /** The process whose tree's CPU time is this target's cost; null: not sampled. */
  readonly pid: number | null;
}

/** Where the bench runs: repository, scratch directory, flags, and what to undo. */
interface Context {
  readonly root: string;
  readonly work: string;
  readonly options: BenchOptions;
  readonly startedAt: Date;
  readonly teardown: Teardown;
}

async function startRuntime(context: Context): Promise<{ port: number; pid: number | null }> {
  const port = await freePort();
  log(`fake runtime on 127.0.0.1:${port}`);
  const runtime = startProcess({
    name: 'fake runtime',
    command: process.execPath,
    args: [
      FAKE_RUNTIME_MAIN,
      ...['--port', String(port), '--model', BENCH_MODEL_REF, '--ttft-ms', '0'],
      ...['--tokens-per-second', String(RUNTIME_TOKENS_PER_SECOND), '--log-level', 'warn'],
    ],
    env: { PATH: process.env['PATH'] ?? '' },
    logFile: join(context.work, 'runtime.log'),
  });
  context.teardown.add(() => runtime.stop());
  await waitForHttp(runtime, `http://127.0.0.1:${port}/health`, 15_000);
  return { port, pid: runtime.child.pid ?? null };
}

async function startNginxTarget(
  context: Context,
  binary: string,
  runtimePort: number,
): Promise<{ endpoint: Endpoint; layout: Record<string, unknown> }> {
  const listenPort = await freePort();
  const upstreamKeepalive = Math.max(128, ...context.options.concurrency);
  const version = nginxVersion(binary);
  log(`nginx (${version}) on 127.0.0.1:${listenPort}`);
  const prefix = join(context.work, 'nginx');
  mkdirSync(prefix);
  const nginx = await startNginx(binary, {
    prefix,
    listenPort,
    upstreamPort: runtimePort,
    upstreamKeepalive,
    workerProcesses: context.options.processes,
  });
  context.teardown.add(() => nginx.stop());
  return {
    endpoint: {
      target: 'nginx',
      url: `http://127.0.0.1:${listenPort}${CHAT_PATH}`,
      model: BENCH_MODEL_REF,
      pid: nginx.child.pid ?? null,
    },
    layout: {
      process: `nginx -p <temp dir> -c nginx.conf -g 'daemon off;'`,
      version,
      workerProcesses: context.options.processes,
      ...NGINX_LAYOUT,
      upstreamKeepalive,
    },
  };
}

interface GatewayTarget {
  readonly endpoint: Endpoint;
  readonly caller: BenchCaller;
  readonly process: StartedProcess;
  readonly databaseUrl: string;
  readonly profileDir: string | null;
  readonly layout: Record<string, unknown>;
  readonly postgres: Record<string, unknown>;
}

/** A scratch database migrated and seeded with the runtime's route and a caller, then the gateway on it. */
async function startGatewayTarget(context: Context, runtimePort: number): Promise<GatewayTarget> {
  const { root, teardown } = context;
  const postgres = await startBenchPostgres(root, log);
  teardown.add(() => postgres.stop());
  const scratch = await createScratchDatabase('bench_data_plane', postgres.adminUrl);
  teardown.add(() => scratch.drop());
  log(`scratch database ${scratch.name} (${postgres.source}): migrating and seeding`);
  await runMigrations(scratch.url);
  const sql = new Client({ connectionString: scratch.url });
  await sql.connect();
  let caller: BenchCaller;
  let serverVersion: string;
  try {
    await seedRoute(sql, runtimePort);
    caller = await seedCaller(sql);
    serverVersion = await postgresServerVersion(queryableClient(sql));
  } finally {
    await sql.end();
  }
  log(
    caller.mode === 'tenant-key'
      ? `gateway caller: tenant key ${caller.keyPrefix}… on alias ${caller.gatewayModel}`
      : `gateway caller: no gateway_keys table yet, anonymous on ${caller.gatewayModel}`,
  );

  const port = await freePort();
  let profileDir: string | null = null;
  const nodeFlags: string[] = [];
  if (context.options.cpuProf) {
    const stamp = context.startedAt
      .toISOString()
      .replace(/\.\d+Z$/, 'Z')
      .replace(/:/g, '-');
    profileDir = join(root, 'bench', 'profiles', stamp);
    mkdirSync(profileDir, { recursive: true });
    nodeFlags.push('--cpu-prof', '--cpu-prof-dir', profileDir);
  }
  log(`gateway on 127.0.0.1:${port}${profileDir === null ? '' : ' (with --cpu-prof)'}`);
  const gateway = startProcess({
    name: 'gateway',
    command: process.execPath,
    args: [...nodeFlags, join(root, 'apps', 'gateway', 'dist', 'src', 'main.js')],
    cwd: root,
    env: {
      PATH: process.env['PATH'] ?? '',
      DATABASE_URL: scratch.url,
      LUNANEXA_GATEWAY_HOST: '127.0.0.1',
      LUNANEXA_GATEWAY_PORT: String(port),
      LUNANEXA_LOG_LEVEL: GATEWAY_LOG_LEVEL,
      // Explicit even for 1: the gateway's own default is one worker per core.
      LUNANEXA_GATEWAY_WORKERS: String(context.options.processes),
    },
    logFile: join(context.work, 'gateway.log'),
  });
  // Before the database is dropped: teardown runs newest first.
  teardown.add(() => gateway.stop(15_000));
  // Ready once routes and tenant policies have loaded from PostgreSQL.
  await waitForHttp(gateway, `http://127.0.0.1:${port}/ready`, 30_000);
  return {
    endpoint: {
      target: 'gateway',
      url: `http://127.0.0.1:${port}${CHAT_PATH}`,
      model: caller.gatewayModel,
      pid: gateway.child.pid ?? null,
    },
    caller,
    process: gateway,
    databaseUrl: scratch.url,
    profileDir,
    layout: {
      process: `node ${profileDir === null ? '' : '--cpu-prof '}apps/gateway/dist/src/main.js`,
      workerProcesses: context.options.processes,
      nodeProcesses:
        context.options.processes === 1
          ? 1
          : `${context.options.processes} workers + the cluster primary (tenant quota counters, metrics sum)`,
      logLevel: GATEWAY_LOG_LEVEL,
      database:
        `scratch PostgreSQL database, migrated and seeded; routes${caller.mode === 'tenant-key' ? ' and tenant keys' : ''} ` +
        'are read from it, request records written to it by the batching writer',
      caller: caller.mode,
      model: caller.gatewayModel,
      cpuProfileDir: profileDir === null ? null : relative(root, profileDir),
    },
    postgres: { source: postgres.source, serverVersion },
  };
}

/** One request per target before anything is timed: each must answer 200, or the run stops here. */
async function probe(endpoint: Endpoint, caller: BenchCaller): Promise<void> {
  const answer = await httpCall(endpoint.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...caller.headers },
    body: chatBody(endpoint.model, false),
  });
  if (answer?.status !== 200) {
    throw new Error(
      `${endpoint.target} did not answer the probe request with 200: ` +
        (answer === null ? 'no answer' : `HTTP ${answer.status} ${answer.body.slice(0, 300)}`),
    );
  }
}

/**
 * Every scenario: a warm-up per target, then rounds in which the targets take
 * turns, each round starting with the next one. `sent` counts every request
 * each target received (primes and warm-ups included).
 */
async function measure(
  options: BenchOptions,
  endpoints: readonly Endpoint[],
  caller: BenchCaller,
  loadGenerator: LoadGenerator,
  sent: Map<Target, number>,
): Promise<(ScenarioFigures & { name: string })[]> {
  const runOnce = async (
    endpoint: Endpoint,
    stream: boolean,
    concurrency: number,
    bound: { durationMs: number | null; requests: number | null },
    cpu?: number[],
  ): Promise<RunFigures> => {
    const cpuBefore = endpoint.pid === null ? null : processTreeCpuMs(endpoint.pid);
    const result = await loadGenerator.run({
      url: endpoint.url,
      headers: { 'content-type': 'application/json', ...caller.headers },
      body: chatBody(endpoint.model, stream),
      stream,
      concurrency,
      ...bound,
      primePerConnection: PRIME_PER_CONNECTION,
    });
    const cpuAfter = endpoint.pid === null ? null : processTreeCpuMs(endpoint.pid);
    if (cpu !== undefined && cpuBefore !== null && cpuAfter !== null && result.sent > 0)
      cpu.push((cpuAfter - cpuBefore) / result.sent);
    sent.set(endpoint.target, (sent.get(endpoint.target) ?? 0) + result.sent);
    if (result.figures.requests === 0) {
      throw new Error(
        `${endpoint.target} answered no request successfully (${JSON.stringify(result.figures.errorKinds)})`,
      );
    }
    return result.figures;
  };

  const scenarios: (ScenarioFigures & { name: string })[] = [];
  for (const stream of options.streams) {
    for (const concurrency of options.concurrency) {
      const label = `${stream ? 'streamed' : 'not streamed'}, c=${concurrency}`;
      if (options.warmupMs > 0) {
        log(`${label}: warm-up`);
        for (const endpoint of endpoints) {
          await runOnce(endpoint, stream, concurrency, { durationMs: options.warmupMs, requests: null });
        }
      }
      const rounds = new Map<Target, RunFigures[]>(endpoints.map((endpoint) => [endpoint.target, []]));
      const cpu = new Map<Target, number[]>(endpoints.map((endpoint) => [endpoint.target, []]));
      for (let round = 0; round < options.rounds; round += 1) {
        log(`${label}: round ${round + 1}/${options.rounds}`);
        // Each round starts with the next target, so none always runs first or right after the same one.
        const order = endpoints.map((_, i) => endpoints[(i + round) % endpoints.length]);
        for (const endpoint of order) {
          const figures = await runOnce(
            endpoint,
            stream,
            concurrency,
            { durationMs: options.durationMs, requests: options.requests },
            cpu.get(endpoint.target),
          );
          rounds.get(endpoint.target)?.push(figures);
        }
      }
      const targets: Partial<Record<Target, TargetFigures>> = {};
      for (const [target, figures] of rounds) {
        const perRequest = median(cpu.get(target) ?? []);
        targets[target] = {
          ...combineRounds(figures),
          cpuMsPerRequest: Number.isNaN(perRequest) ? null : Math.round(perRequest * 10_000) / 10_000,
        };
      }
      scenarios.push({ name: scenarioName(stream), stream, concurrency, targets });
    }
  }
  return scenarios;
}

/** Request records in the scratch database, once the stopped gateway has flushed its batches. */
async function countRequestRecords(
  databaseUrl: string,
  sentToGateway: number,
): Promise<Record<string, unknown>> {
  const sql = new Client({ connectionString: databaseUrl });
  await sql.connect();
  try {
    const rows = await requestRecordCountsByOutcome(queryableClient(sql));
    return {
      sentToGateway,
      writtenToPostgres: rows.reduce((sum, row) => sum + Number(row.count), 0),
      byOutcome: Object.fromEntries(rows.map((row) => [row.outcome, Number(row.count)])),
      note: 'sent counts warm-ups, connection primes and the probe request',
    };
  } finally {
    await sql.end();
  }
}

const twoDecimals = (values: readonly number[]): number[] =>
  values.map((value) => Math.round(value * 100) / 100);

async function bench(context: Context, argv: readonly string[], nginxBinary: string | null): Promise<void> {
  const { root, options } = context;
  const wants = (target: Target): boolean => options.targets.includes(target);
  const loadAverageStart = loadavg();

  const runtime = await startRuntime(context);
  const runtimePort = runtime.port;
  const endpoints: Endpoint[] = [];
  const processes: Record<string, unknown> = {
    note:
      'every process is separate and unpinned: load generator, runtime, nginx, gateway and PostgreSQL ' +
      'share the machine’s cores',
    loadGenerator: {
      process: 'node apps/gateway/dist/bench/load-generator.js',
      connections: `keep-alive, one per concurrent request, each used ${PRIME_PER_CONNECTION} times before the clock starts`,
    },
    runtime: {
      process: 'node apps/fake-runtime/dist/src/main.js',
      model: BENCH_MODEL_REF,
      ttftMs: 0,
      tokensPerSecond: RUNTIME_TOKENS_PER_SECOND,
      logLevel: 'warn',
    },
  };
  if (wants('direct')) {
    endpoints.push({
      target: 'direct',
      url: `http://127.0.0.1:${runtimePort}${CHAT_PATH}`,
      model: BENCH_MODEL_REF,
      pid: runtime.pid,
    });
  }
  if (nginxBinary !== null) {
    const nginx = await startNginxTarget(context, nginxBinary, runtimePort);
    endpoints.push(nginx.endpoint);
    processes['nginx'] = nginx.layout;
  }
  let gateway: GatewayTarget | null = null;
  if (wants('gateway')) {
    gateway = await startGatewayTarget(context, runtimePort);
    endpoints.push(gateway.endpoint);
    processes['gateway'] = gateway.layout;
    processes['postgres'] = gateway.postgres;
  }
  const caller = gateway?.caller ?? ANONYMOUS_CALLER;
  for (const endpoint of endpoints) await probe(endpoint, caller);

  const loadGenerator = LoadGenerator.start();
  context.teardown.add(() => loadGenerator.stop());
  const sent = new Map<Target, number>(endpoints.map((endpoint) => [endpoint.target, 1]));
  const scenarios = await measure(options, endpoints, caller, loadGenerator, sent);
  const loadAverageEnd = loadavg();
  await loadGenerator.stop();

  let requestRecords: Record<string, unknown> | null = null;
  if (gateway !== null) {
    // A graceful stop flushes the request log's last batch.
    await gateway.process.stop(15_000);
    requestRecords = await countRequestRecords(gateway.databaseUrl, sent.get('gateway') ?? 0);
  }

  const derived = scenarios.map(deriveFigures);
  const result: DataPlaneResult = {
    benchmark: 'data-plane',
    generatedAt: context.startedAt.toISOString(),
    command: ['npm run bench', ...(argv.length > 0 ? ['--', ...argv] : [])].join(' '),
    settings: {
      durationMs: options.durationMs,
      requests: options.requests,
      warmupMs: options.warmupMs,
      rounds: options.rounds,
      concurrency: options.concurrency,
      stream: options.streams,
      targets: options.targets,
      processes: options.processes,
      maxTokens: MAX_TOKENS,
      primePerConnection: PRIME_PER_CONNECTION,
      figures:
        'percentiles and req/s are medians over rounds of each run’s own figure; requests and errors are totals',
      cpuMsPerRequest:
        'user + system CPU of the target’s whole process tree (/proc/<pid>/stat, 10 ms ticks) over a timed run ' +
        'divided by the requests it received in that run, median over rounds; unlike req/s it does not ' +
        'depend on what else the machine runs',
      requestBytes:
        'the same headers and a body of the same length on every target; the gateway is asked for ' +
        (caller.mode === 'tenant-key' ? 'its alias with a tenant key' : 'model@version without a credential'),
    },
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? 'unknown',
      totalMemoryMiB: Math.round(totalmem() / 1_048_576),
      platform: process.platform,
      kernel: release(),
      node: process.version,
      loadAverageStart: twoDecimals(loadAverageStart),
      loadAverageEnd: twoDecimals(loadAverageEnd),
    },
    processes,
    scenarios,
    derived,
    targets: evaluateTargets(derived),
    requestRecords,
  };
  const out = resolve(root, options.out);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);

  process.stdout.write(renderTable(result));
  if (requestRecords !== null) {
    process.stdout.write(
      `request records: ${String(requestRecords['writtenToPostgres'])} written to PostgreSQL, ` +
        `${String(requestRecords['sentToGateway'])} requests sent to the gateway\n`,
    );
  }
  process.stdout.write(`wrote ${relative(root, out)}\n`);
  if (gateway !== null && gateway.profileDir !== null) printProfile(root, gateway.profileDir);
}

function printProfile(root: string, profileDir: string): void {
  const profile = profilesUnder(profileDir)[0];
  if (profile === undefined || !existsSync(profile)) {
    log(`no .cpuprofile appeared in ${relative(root, profileDir)}`);
    return;
  }
  process.stdout.write(
    `\ngateway CPU profile, top functions by self time:\n${topOfProfileFile(profile, 15, root)}` +
      `more: node apps/gateway/dist/bench/cpu-profile-top.js ${relative(root, profile)} --top 50\n`,
  );
}

async function main(argv: readonly string[]): Promise<void> {
  let options: BenchOptions | null;
  try {
    options = parseBenchArgs(argv);
  } catch (error: unknown) {
    if (error instanceof BenchUsageError) {
      process.stderr.write(`bench: ${error.message}\n\n${BENCH_USAGE}`);
      process.exit(64);
    }
    throw error;
  }
  if (options === null) {
    process.stdout.write(BENCH_USAGE);
    return;
  }
  // Before anything starts: a missing nginx that cannot be installed is one line, not half a run.
  const nginxBinary = options.targets.includes('nginx') ? ensureNginx(log) : null;

  const work = mkdtempSync(join(tmpdir(), 'lunanexa-bench-'));
  const teardown = new Teardown();
  teardown.add(() => rmSync(work, { recursive: true, force: true }));
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      log(`${signal}: stopping every process the bench started`);
      void teardown.run().finally(() => process.exit(130));
    });
  }
  const context: Context = { root: findRepoRoot(), work, options, startedAt: new Date(), teardown };
  try {
    await bench(context, argv, nginxBinary);
  } finally {
    await teardown.run();
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
