import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { cpus, freemem, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import {
  FleetHarness,
  REPO_ROOT,
  SIMULATED_ENDPOINT_PORT,
  nodeLossEnv,
  percentile,
  prepareBenchEnvironment,
  heartbeatTimeline,
  summarizeHeartbeats,
  ThreadedAgentSimulator,
  waitUntil,
  type HeartbeatStats,
  type SimulatorLoopDelay,
} from '../src';
import {
  benchServerSettings,
  countActiveLeasedNodes,
  countNodesRecoveredBesides,
  countNodesRunningReplicas,
  countReadyReplicas,
  nodesRunningReplicas,
  nodesWithRecoveryStarted,
  recoveryReceipts,
  sessionPidsByApplication,
} from '@lunanexa/persistence';

/**
 * `npm run bench:scale`: issue 12's fleet-scale figures on the real api,
 * worker, gateway, Temporal and PostgreSQL, with 1,000 simulated agents in
 * this process (e2e/src/agent-simulator.ts: the agent's own enrollment,
 * heartbeat and SSH code; simulated inventory and runtime) on a worker
 * thread (e2e/src/agent-simulator-threads.ts; more with --simulator-threads,
 * which on a 2-core machine costs more CPU than it saves).
 *
 * 1. Enrollment: every agent gets its own single-use auto-approving token and
 *    enrolls; timed until all are Active with a live lease.
 * 2. Heartbeat ingest: a steady window of signed heartbeats (interval ±
 *    jitter); agent-side round trip p50/p95/p99/max and dropped (no verified
 *    ack: non-2xx, timeout or unreachable, untrusted answer).
 * 3. Node loss at scale: deployments (Binpack) put ~100 replicas on ~10
 *    nodes; those nodes die at once (heartbeats and SSH stop); timed until
 *    each is detected (its NodeRecovery's `node.recovery.start` receipt) and
 *    until every replica is Ready again on other nodes.
 *
 * Both heartbeat windows (2 and 3) also say how much CPU each process spent
 * per accepted heartbeat — the simulator (this process), api, worker,
 * gateway and the PostgreSQL backends, from /proc — the figure to compare
 * on a shared machine, where round trips mostly measure the queue for a CPU.
 *
 * Options: --agents N (1000) --steady-seconds S (120) --interval-seconds I (5)
 * --lease-seconds L (15) --grace-seconds G (5) --deployments D (10)
 * --replicas R (10 per deployment) --enroll-concurrency C (16) --simulator-threads T (1: every agent
 * on one event loop, off the bench's main thread) --worker-nice N and
 * --temporal-nice N (10 and 10, as `npm start` runs them; 0 0 gives every process the same
 * CPU priority) --samples FILE (the recovery window's heartbeats, one by one) --result NAME.
 * Writes bench/results/agent-scale.json (NAME.json with --result).
 */

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  const value = at === -1 ? NaN : Number(process.argv[at + 1]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

const AGENTS = option('agents', 1000);
const STEADY_SECONDS = option('steady-seconds', 120);
const INTERVAL_SECONDS = option('interval-seconds', 5);
const JITTER_SECONDS = INTERVAL_SECONDS / 5;
const LEASE_SECONDS = option('lease-seconds', 15);
const GRACE_SECONDS = option('grace-seconds', 5);
const WATCH_INTERVAL_SECONDS = 1;
const DEPLOYMENTS = option('deployments', 10);
const REPLICAS = option('replicas', 10);
const ENROLL_CONCURRENCY = option('enroll-concurrency', 16);
const SIMULATOR_THREADS = option('simulator-threads', 1);

/** A nice value 0–19 (0 allowed, unlike option()); the product's default when not given. */
function niceOption(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  if (at === -1) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!Number.isInteger(value) || value < 0 || value > 19) throw new Error(`--${name} takes 0–19`);
  return value;
}
/** CPU priority of the worker and the Temporal dev server; 0 and 0 is the equal-priority baseline. */
const WORKER_NICE = niceOption('worker-nice', 10);
const TEMPORAL_NICE = niceOption('temporal-nice', 10);
/** --samples <file>: every heartbeat of the recovery window (start, round trip, outcome) as JSON, to look into. */
const SAMPLES_FILE = process.argv.includes('--samples')
  ? (process.argv[process.argv.indexOf('--samples') + 1] ?? null)
  : null;
/** --result <name>: bench/results/<name>.json instead of agent-scale.json (another configuration kept beside it). */
const RESULT_FILE = `${process.argv.includes('--result') ? process.argv[process.argv.indexOf('--result') + 1] : 'agent-scale'}.json`;
if (!/^[a-z0-9-]+\.json$/.test(RESULT_FILE))
  throw new Error(`--result takes a name like agent-scale-defaults`);

const log = (message: string): void => console.log(`[bench:scale] ${new Date().toISOString()} ${message}`);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Load averages sampled every 5 s while `run` runs. */
async function withLoad<T>(run: () => Promise<T>): Promise<{ value: T; loadAverage1m: number[] }> {
  const samples: number[] = [];
  const timer = setInterval(() => samples.push(loadavg()[0] ?? NaN), 5000);
  try {
    return { value: await run(), loadAverage1m: samples };
  } finally {
    clearInterval(timer);
  }
}

/** Cumulative bucket counts of the api's heartbeat request duration histogram (`le` in seconds → count). */
async function heartbeatBuckets(apiUrl: string): Promise<Map<number, number>> {
  const text = await (await fetch(`${apiUrl}/metrics`)).text();
  const buckets = new Map<number, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith('lunanexa_http_request_duration_seconds_bucket{')) continue;
    if (!line.includes('route="/agent/v1/heartbeat"')) continue;
    const le = /le="([^"]+)"/.exec(line)?.[1];
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (le !== undefined) buckets.set(le === '+Inf' ? Infinity : Number(le), value);
  }
  return buckets;
}

/**
 * Server-side heartbeat handling time over a window, from the api's own
 * histogram (`lunanexa_http_request_duration_seconds{route="/agent/v1/heartbeat"}`):
 * each percentile as the upper bound of the bucket it falls in.
 */
function serverPercentiles(
  before: Map<number, number>,
  after: Map<number, number>,
): { requests: number; p50UpToMs: number; p95UpToMs: number; p99UpToMs: number } {
  const bounds = [...after.keys()].sort((a, b) => a - b);
  const counts = bounds.map((le) => (after.get(le) ?? 0) - (before.get(le) ?? 0));
  const total = counts.at(-1) ?? 0;
  const upTo = (p: number): number => {
    const index = counts.findIndex((c) => c >= (p / 100) * total);
    const le = bounds[index] ?? Infinity;
    return le === Infinity ? Infinity : le * 1000;
  };
  return { requests: total, p50UpToMs: upTo(50), p95UpToMs: upTo(95), p99UpToMs: upTo(99) };
}

/** What the api's default process metrics say (prom-client: the event-loop delay figures cover the time since the previous scrape). */
async function apiRuntime(
  apiUrl: string,
): Promise<{ lagP50Ms: number; lagP99Ms: number; lagMaxMs: number; gcSeconds: number; gcCount: number }> {
  const text = await (await fetch(`${apiUrl}/metrics`)).text();
  const gauge = (name: string): number => {
    const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
    return line === undefined ? NaN : Number(line.slice(line.lastIndexOf(' ') + 1));
  };
  const summed = (name: string): number =>
    text
      .split('\n')
      .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
      .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
  const ms = (seconds: number): number => Math.round(seconds * 1e4) / 10;
  return {
    lagP50Ms: ms(gauge('lunanexa_nodejs_eventloop_lag_p50_seconds')),
    lagP99Ms: ms(gauge('lunanexa_nodejs_eventloop_lag_p99_seconds')),
    lagMaxMs: ms(gauge('lunanexa_nodejs_eventloop_lag_max_seconds')),
    gcSeconds: summed('lunanexa_nodejs_gc_duration_seconds_sum'),
    gcCount: summed('lunanexa_nodejs_gc_duration_seconds_count'),
  };
}

/**
 * Where a round trip can wait besides the wire: event-loop delay of the api
 * (its own histogram, since the scrape at the window's start) and of each
 * simulator thread (a late timer or callback there is part of every round
 * trip it measures), and the api's GC time in the window.
 */
async function withEventLoops<T>(
  apiUrl: string,
  run: () => Promise<T>,
  windowSecondsOf: (value: T) => number,
  simulatorLoopsOf: (value: T) => readonly SimulatorLoopDelay[],
): Promise<{ value: T; eventLoop: Record<string, unknown> }> {
  const before = await apiRuntime(apiUrl);
  const value = await run();
  const after = await apiRuntime(apiUrl);
  const loops = simulatorLoopsOf(value);
  const worst = (pick: (loop: SimulatorLoopDelay) => number): number => Math.max(...loops.map(pick));
  const seconds = windowSecondsOf(value);
  return {
    value,
    eventLoop: {
      api: {
        delayP50Ms: after.lagP50Ms,
        delayP99Ms: after.lagP99Ms,
        delayMaxMs: after.lagMaxMs,
        gcMsPerSecond: Math.round(((after.gcSeconds - before.gcSeconds) * 1e4) / seconds) / 10,
        gcPauses: after.gcCount - before.gcCount,
      },
      simulatedAgents: {
        threads: loops.length,
        worstThreadDelayP50Ms: worst((loop) => loop.p50Ms),
        worstThreadDelayP99Ms: worst((loop) => loop.p99Ms),
        worstThreadDelayMaxMs: worst((loop) => loop.maxMs),
        perThread: loops,
      },
      note: 'event-loop delay (perf_hooks monitorEventLoopDelay, 10 ms resolution) over the window: the api’s from its own metrics, each simulator thread’s measured in that thread; api GC time from its metrics',
    },
  };
}

/** Clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ; 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** CPU ticks (user + system) of one process so far, or 0 once it is gone. */
function processTicks(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return Number(fields[11] ?? 0) + Number(fields[12] ?? 0);
  } catch {
    return 0;
  }
}

/**
 * Each component's processes: this one (the simulated agents), api, worker, gateway, the Temporal dev server
 * (the CLI serving the harness's port) and the PostgreSQL backends of the fleet's database, all of them and
 * split by the client whose session each serves (`postgresFor.<application_name>`: the worker's SQL runs in
 * backends at the server's priority, not the worker's).
 */
async function componentPids(h: FleetHarness): Promise<Record<string, number[]>> {
  const postgres: number[] = [];
  const temporal: number[] = [];
  const temporalPort = h.temporal.address.split(':').at(-1) ?? '';
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmdline.startsWith('postgres:') && cmdline.includes(` ${h.db.name} `)) postgres.push(Number(entry));
      const args = cmdline.split('\0');
      if (args.includes('start-dev') && args[args.indexOf('--port') + 1] === temporalPort)
        temporal.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  const pid = (p: { child: { pid?: number | undefined } } | null): number[] =>
    p?.child.pid === undefined ? [] : [p.child.pid];
  const sessions = await sessionPidsByApplication(h.queryable());
  return {
    ...Object.fromEntries([...sessions].map(([name, list]) => [`postgresFor.${name}`, list])),
    simulatedAgents: [process.pid],
    api: pid(h.api),
    worker: pid(h.worker),
    gateway: pid(h.gateway),
    temporalServer: temporal,
    postgresBackends: postgres,
  };
}

/**
 * Where the CPU goes while `run` runs: cores each component used on average
 * (from /proc, this machine only), and CPU milliseconds per accepted
 * heartbeat. PostgreSQL backends are those connected to the fleet's database
 * when the window starts (the pools are filled by then).
 */
async function withCpu<T>(
  h: FleetHarness,
  run: () => Promise<T>,
  heartbeatsOf: (value: T) => { readonly acked: number; readonly windowSeconds: number },
): Promise<{ value: T; cpu: Record<string, { cores: number; msPerHeartbeat: number }> }> {
  const pids = await componentPids(h);
  const before = new Map(
    Object.values(pids).flatMap((list) => list.map((p) => [p, processTicks(p)] as const)),
  );
  const value = await run();
  const { acked, windowSeconds } = heartbeatsOf(value);
  const cpu: Record<string, { cores: number; msPerHeartbeat: number }> = {};
  for (const [name, list] of Object.entries(pids)) {
    // A process gone by the end (a pooled connection closed) takes its ticks with it: counted as nothing.
    const ticks = list.reduce((sum, p) => {
      const after = processTicks(p);
      return after === 0 ? sum : sum + after - (before.get(p) ?? after);
    }, 0);
    const seconds = ticks / TICKS_PER_SECOND;
    cpu[name] = {
      cores: Math.round((seconds / windowSeconds) * 100) / 100,
      msPerHeartbeat: acked === 0 ? NaN : Math.round(((seconds * 1000) / acked) * 100) / 100,
    };
  }
  return { value, cpu };
}

/** The benchmark's deployments: scale-0 … scale-9. */
const SCALE_DEPLOYMENTS = { namePrefix: 'scale-' } as const;

/**
 * A bootstrap token for `name`, asked again when the api did not answer: on a machine this
 * loaded one GraphQL call among a thousand can be dropped, and a lost token is not what is measured.
 */
async function issueToken(h: FleetHarness, name: string): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await h.createBootstrapToken(name, true);
    } catch (error: unknown) {
      if (attempt >= 5) throw error;
      log(`token for ${name} not issued (${String(error)}); asking again`);
      await sleep(1000 * attempt);
    }
  }
}

async function main(): Promise<void> {
  const loadAverageStart = loadavg();
  prepareBenchEnvironment();
  const h = await FleetHarness.start('agent-scale', {
    leaseSeconds: 600,
    temporalNice: TEMPORAL_NICE,
    extraEnv: {
      LUNANEXA_WORKER_NICE: String(WORKER_NICE),
      ...nodeLossEnv(LEASE_SECONDS, GRACE_SECONDS),
      LUNANEXA_NODE_WATCH_INTERVAL_SECONDS: String(WATCH_INTERVAL_SECONDS),
    },
  });
  // Agent state (keys, sequence, assignments; fsync'd per heartbeat) on tmpfs where there is one: the disk is not what is measured.
  const stateRoot = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
  const dataDir = mkdtempSync(join(stateRoot, 'lunanexa-agent-scale-'));
  const sim = new ThreadedAgentSimulator(
    {
      controllerUrl: h.apiUrl,
      controllerKeyFingerprint: await h.controllerFingerprint(),
      dataDir,
      heartbeatIntervalMs: INTERVAL_SECONDS * 1000,
      jitterMs: JITTER_SECONDS * 1000,
      requestTimeoutMs: 10_000,
    },
    SIMULATOR_THREADS,
  );
  try {
    // 1. Enrollment.
    const names = Array.from({ length: AGENTS }, (_, i) => `sim-${String(i).padStart(4, '0')}`);
    const enrollStarted = Date.now();
    const enrolling = await withLoad(async () => {
      const progress = setInterval(() => log(`enrolled ${sim.enrolled}/${AGENTS}`), 10_000);
      try {
        await sim.enrollAll(names, (name) => issueToken(h, name), ENROLL_CONCURRENCY);
      } finally {
        clearInterval(progress);
      }
      const enrolledMs = Date.now() - enrollStarted;
      await waitUntil(
        `${AGENTS} nodes Active with a live lease`,
        async () => (await countActiveLeasedNodes(h.queryable())) === AGENTS,
        600_000,
        1000,
      );
      return { enrolledMs, activeMs: Date.now() - enrollStarted };
    });
    log(`enrollment: ${JSON.stringify(enrolling.value)}`);

    // 2. Steady heartbeat ingest.
    await sim.resetStats();
    const serverBefore = await heartbeatBuckets(h.apiUrl);
    const steady = await withLoad(() =>
      withCpu(
        h,
        () =>
          withEventLoops(
            h.apiUrl,
            async () => {
              await sleep(STEADY_SECONDS * 1000);
              const window = await sim.collect();
              return { stats: summarizeHeartbeats(window.samples, window.windowMs), loops: window.loopDelay };
            },
            ({ stats }) => stats.windowSeconds,
            ({ loops }) => loops,
          ),
        ({ value }) => value.stats,
      ),
    );
    const serverSide = serverPercentiles(serverBefore, await heartbeatBuckets(h.apiUrl));
    log(`api-side heartbeat handling: ${JSON.stringify(serverSide)}`);
    log(`steady heartbeats: ${JSON.stringify(steady.value.value.value.stats)}`);
    log(`steady event loops: ${JSON.stringify(steady.value.value.eventLoop)}`);
    log(`steady cpu: ${JSON.stringify(steady.value.cpu)}`);

    // 3. ~100 replicas on ~10 nodes, those nodes lost at once.
    await h.graphql(
      `mutation($input: RegisterModelVersionInput!) { registerModelVersion(input: $input) { ref } }`,
      { input: { model: 'scale', version: 'v1' } },
    );
    const placeStarted = Date.now();
    for (let d = 0; d < DEPLOYMENTS; d++) {
      await h.graphql(
        `mutation($input: CreateDeploymentInput!) { createDeployment(input: $input) { deploymentId } }`,
        {
          input: {
            name: `scale-${d}`,
            model: 'scale@v1',
            replicas: REPLICAS,
            purpose: 'Candidate',
            placementStrategy: 'Binpack',
          },
        },
      );
    }
    const total = DEPLOYMENTS * REPLICAS;
    await waitUntil(
      `${total} replicas Ready`,
      async () => (await countReadyReplicas(h.queryable(), SCALE_DEPLOYMENTS)) === total,
      600_000,
      500,
    );
    const placedMs = Date.now() - placeStarted;
    const victims = await nodesRunningReplicas(h.queryable(), SCALE_DEPLOYMENTS);
    log(`${total} replicas Ready in ${placedMs} ms on ${victims.length} nodes; killing them`);
    const victimIds = victims.map((v) => v.id);

    await sim.resetStats();
    // Set when the kill starts (after the window's first metrics scrape).
    let killedAt = Date.now();
    const measured = await withLoad(() =>
      withCpu(
        h,
        () =>
          withEventLoops(
            h.apiUrl,
            recover,
            (value) => value.heartbeatsDuringRecovery.windowSeconds,
            (value) => value.simulatorLoops,
          ),
        ({ value }) => value.heartbeatsDuringRecovery,
      ),
    );
    async function recover() {
      killedAt = Date.now();
      await sim.kill(victims.map((v) => v.name));
      const detectedAt = new Map<string, number>();
      const detection = (async () => {
        while (detectedAt.size < victimIds.length && Date.now() - killedAt < 600_000) {
          for (const nodeId of await nodesWithRecoveryStarted(h.queryable(), victimIds)) {
            if (!detectedAt.has(nodeId)) detectedAt.set(nodeId, Date.now());
          }
          await sleep(200);
        }
      })();
      await waitUntil(
        `${total} replicas Ready again off the lost nodes`,
        async () => (await countReadyReplicas(h.queryable(), SCALE_DEPLOYMENTS, victimIds)) === total,
        600_000,
        250,
      );
      const readyMs = Date.now() - killedAt;
      await detection;
      const detect = [...detectedAt.values()].map((at) => at - killedAt).sort((a, b) => a - b);
      const receipts = await waitUntil(
        'a node.recovery.complete receipt per lost node',
        async () => {
          const rows = await recoveryReceipts(h.queryable(), victimIds);
          return rows.length >= victimIds.length ? rows : null;
        },
        120_000,
        500,
      );
      const replacementNodes = await countNodesRunningReplicas(h.queryable(), SCALE_DEPLOYMENTS, victimIds);
      const window = await sim.collect();
      return {
        nodesLost: victims.length,
        replicasLost: victims.reduce((sum, v) => sum + v.replicas, 0),
        detectedMs: {
          first: detect[0],
          p50: percentile(detect, 50),
          all: detect.at(-1),
          detected: detect.length,
        },
        allReplacementsReadyMs: readyMs,
        replacementNodes,
        receipts: {
          complete: receipts.length,
          replaced: receipts.filter((r) => r.replaced).length,
          secondsToReplacedMax: Math.max(...receipts.map((r) => r.secondsToReplaced)),
        },
        heartbeatsDuringRecovery: summarizeHeartbeats(window.samples, window.windowMs),
        // Seconds from the kill: lines up a slow stretch with detection (detectedMs) and re-placement.
        heartbeatTimeline: heartbeatTimeline(window.samples, killedAt),
        samples: window.samples,
        simulatorLoops: window.loopDelay,
        // A live node whose lease lapsed anyway (ingest too slow for the lease) and was declared lost.
        liveNodesDeclaredLost: await countNodesRecoveredBesides(h.queryable(), victimIds),
      };
    }
    // The samples go to --samples only; the threads' loop delays are in eventLoop.
    const { samples: recoverySamples, simulatorLoops: _loops, ...recovered } = measured.value.value.value;
    const loss = {
      value: {
        ...recovered,
        heartbeatsDuringRecovery: {
          ...recovered.heartbeatsDuringRecovery,
          cpu: measured.value.cpu,
          eventLoop: measured.value.value.eventLoop,
        },
      },
      loadAverage1m: measured.loadAverage1m,
    };
    log(`node loss: ${JSON.stringify(loss.value)}`);
    if (SAMPLES_FILE !== null)
      writeFileSync(SAMPLES_FILE, JSON.stringify({ killedAt, samples: recoverySamples }));

    const out = {
      benchmark: 'agent-scale',
      generatedAt: new Date().toISOString(),
      command: `npm run bench:scale -- ${process.argv.slice(2).join(' ')}`.trim(),
      settings: {
        agents: AGENTS,
        fleet: `simulated agents in one process on ${SIMULATOR_THREADS} worker thread(s), agent i on thread i mod ${SIMULATOR_THREADS} (e2e/src/agent-simulator.ts, agent-simulator-threads.ts): each its own Ed25519 node key and SSH host key, enrolled through the API with its own single-use auto-approving bootstrap token, signed heartbeats whose signed acks it verifies, a real ssh2 server answering assignment.put with signed assignment.acks; inventory simulated (DGX Spark; every tenth node 8x H100); runtime simulated: no process is started, an accepted Run assignment reports Ready (nominal endpoint port ${SIMULATED_ENDPOINT_PORT}, nothing serves) in the next heartbeat`,
        heartbeatIntervalSeconds: INTERVAL_SECONDS,
        heartbeatJitterSeconds: JITTER_SECONDS,
        heartbeatTimeoutSeconds: 10,
        nodeLeaseSeconds: LEASE_SECONDS,
        lostGraceSeconds: GRACE_SECONDS,
        watchIntervalSeconds: WATCH_INTERVAL_SECONDS,
        enrollConcurrency: ENROLL_CONCURRENCY,
        cpuPriority: {
          workerNice: WORKER_NICE,
          temporalNice: TEMPORAL_NICE,
          note: 'nice values of every worker and Temporal dev server thread; the api, gateway, PostgreSQL and the simulator run at 0',
        },
        steadySeconds: STEADY_SECONDS,
        deployments: `${DEPLOYMENTS} x ${REPLICAS} replicas, Binpack (so they share ~${REPLICAS} nodes)`,
        stack:
          'real api, worker, gateway processes; Temporal dev server (pinned CLI); local PostgreSQL; all on this machine with the simulator',
        latency:
          'agent-side round trip of one heartbeat: sign, POST /agent/v1/heartbeat, controller ingest, verify the signed ack (performance.now around HeartbeatLoop.beat)',
        dropped: 'a heartbeat without a verified ack: non-2xx, timeout/unreachable, or an untrusted answer',
        detection:
          'kill (heartbeats and SSH stop) → the node’s NodeRecovery wrote node.recovery.start (replicas marked Lost); expected ≈ remaining lease (up to the lease) + grace + one watch pass',
      },
      machine: {
        cpus: cpus().length,
        cpuModel: cpus()[0]?.model ?? null,
        memoryGiB: Math.round(totalmem() / 2 ** 30),
        freeMemoryGiBEnd: Math.round(freemem() / 2 ** 30),
        loadAverageStart,
        loadAverageEnd: loadavg(),
        postgres: await benchServerSettings(h.queryable()),
        note: 'the simulator, api, worker, gateway, Temporal and PostgreSQL all run here; whatever else ran shows in the load averages (at start, per window, at the end)',
      },
      enrollment: { ...enrolling.value, loadAverage1m: enrolling.loadAverage1m },
      heartbeats: {
        ...steady.value.value.value.stats,
        eventLoop: steady.value.value.eventLoop,
        cpu: {
          ...steady.value.cpu,
          note: 'average cores each component used over the steady window, and CPU ms per acked heartbeat (user + system from /proc); the machine is shared, so what the others use is not here',
        },
        apiSide: {
          ...serverSide,
          note: 'the api’s own request duration histogram for POST /agent/v1/heartbeat over the same window; each figure is the upper bound of its bucket',
        },
        loadAverage1m: steady.loadAverage1m,
      } as HeartbeatStats & { loadAverage1m: number[] },
      nodeLoss: { ...loss.value, placedMs, loadAverage1m: loss.loadAverage1m },
    };
    const dir = join(REPO_ROOT, 'bench', 'results');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, RESULT_FILE), `${JSON.stringify(out, null, 2)}\n`);
    log(`wrote bench/results/${RESULT_FILE}`);
  } finally {
    await sim.stop();
    await h.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
