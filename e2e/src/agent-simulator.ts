import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  DEFAULT_MAX_SKEW_MS,
  ed25519KeyId,
  parseEd25519PublicKey,
  ReplayGuard,
} from '@lunanexa/agent-protocol';
import {
  AssignmentStore,
  ASSIGNMENTS_FILE,
  createAgentMetrics,
  CredentialStore,
  enroll,
  HeartbeatLoop,
  HeartbeatSequence,
  NodeKeyRing,
  RefusalQueue,
  simulatedInventory,
  SshRefusalLog,
  startSouthbound,
  ControllerTrust,
  type AgentMetrics,
  type HeartbeatObservations,
  type HeartbeatOutcome,
  type SimulatedProfile,
  type Southbound,
} from '@lunanexa/agent';
import type { NodeInventory, ObservedAssignment } from '@lunanexa/contracts';
import { createLogger, type Logger } from '@lunanexa/observability';

/**
 * Many agents in one process, each speaking the real southbound protocol v1
 * with the agent's own code: its own Ed25519 node key and SSH host key, a
 * real enrollment (bootstrap token, signed `enroll.request`, the answer
 * verified against the pinned controller fingerprint), signed heartbeats
 * whose `heartbeat.ack` is verified (HeartbeatLoop), and a real ssh2 server
 * answering the `lunanexa-agent-v1` subsystem (startSouthbound: controller
 * key auth, fencing, durable assignment store, signed `assignment.ack`).
 *
 * What is simulated is the node below the agent: the inventory
 * (simulatedInventory: DGX Spark or 8× H100) and the runtime. No process is
 * started for an assignment; an accepted `Run` assignment whose lease is live
 * reports Ready (at its generation, with a nominal endpoint port nothing
 * listens on) in the agent's next heartbeat, exactly where a real agent
 * would report its runtime's state. So the controller's side — ingest,
 * leases, placement, assignment pushes, NodeRecovery — is what is measured;
 * nothing here serves inference.
 *
 * The simulator drives each agent's heartbeats itself (HeartbeatLoop.beat,
 * never two at once per agent) so it can time every one: the figure is the
 * agent-side round trip (sign, POST, controller ingest, verify the ack).
 */

/** The agent's default `inventory.refreshIntervalSeconds` (30 s), as milliseconds. */
const INVENTORY_REFRESH_MS = 30_000;

/** Endpoint port simulated replicas report (discard service: nothing answers there). */
export const SIMULATED_ENDPOINT_PORT = 9;

export interface AgentSimulatorOptions {
  readonly controllerUrl: string;
  /** `SHA256:…` of the controller key, as an operator copies it with the token. */
  readonly controllerKeyFingerprint: string;
  /** Per-agent state (node key, host key, heartbeat sequence, assignments); tmpfs keeps fsyncs cheap. */
  readonly dataDir: string;
  readonly heartbeatIntervalMs: number;
  /** Each interval is drawn uniformly from interval ± jitter, so agents do not beat in lockstep. */
  readonly jitterMs: number;
  /** One heartbeat may take this long before it counts as dropped (timeout). */
  readonly requestTimeoutMs?: number;
  readonly host?: string;
  readonly logger?: Logger;
}

/** One heartbeat's outcome, as the simulator counts it. */
export interface HeartbeatSample {
  readonly agent: string;
  readonly startedAt: number;
  readonly latencyMs: number;
  readonly outcome: HeartbeatOutcome;
  readonly status: number | null;
  readonly code: string | null;
  /** How the ack was authenticated (`Ed25519` signature or `HMAC-SHA256` heartbeat MAC); null without one. */
  readonly ackAlg: string | null;
  /** How the heartbeat carried the inventory: `inventory` in full, or `digest` of the one the controller holds. */
  readonly inventoryAs: string | null;
}

export interface HeartbeatStats {
  readonly sent: number;
  readonly acked: number;
  /** No verified ack: refused (non-2xx), unreachable (timeout, connection) or an untrusted answer. */
  readonly dropped: number;
  readonly droppedRate: number;
  readonly byOutcome: Readonly<Record<string, number>>;
  /** Acked heartbeats by how their ack was authenticated (signed, or MAC'd once the agent agreed MAC keys). */
  readonly acksBy: Readonly<Record<string, number>>;
  /** Acked heartbeats by how they carried the inventory (in full, or as the digest the controller holds). */
  readonly inventoryBy: Readonly<Record<string, number>>;
  /** Acked heartbeats only, agent-side round trip. */
  readonly latencyMs: {
    readonly p50: number;
    readonly p95: number;
    readonly p99: number;
    readonly max: number;
    readonly mean: number;
  };
  readonly windowSeconds: number;
  readonly perSecond: number;
  /** A few dropped heartbeats' reasons. */
  readonly dropSamples: readonly string[];
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
}

const round = (value: number): number => Math.round(value * 100) / 100;

export function summarizeHeartbeats(samples: readonly HeartbeatSample[], windowMs: number): HeartbeatStats {
  const acked = samples.filter((s) => s.outcome === 'ok');
  const latencies = acked.map((s) => s.latencyMs).sort((a, b) => a - b);
  const byOutcome: Record<string, number> = {};
  for (const sample of samples) {
    const key =
      sample.outcome === 'ok' ? 'ok' : `${sample.outcome}${sample.status ? ` ${sample.status}` : ''}`;
    byOutcome[key] = (byOutcome[key] ?? 0) + 1;
  }
  const acksBy: Record<string, number> = {};
  const inventoryBy: Record<string, number> = {};
  for (const sample of acked) {
    if (sample.ackAlg !== null) acksBy[sample.ackAlg] = (acksBy[sample.ackAlg] ?? 0) + 1;
    if (sample.inventoryAs !== null)
      inventoryBy[sample.inventoryAs] = (inventoryBy[sample.inventoryAs] ?? 0) + 1;
  }
  const dropped = samples.length - acked.length;
  return {
    sent: samples.length,
    acked: acked.length,
    dropped,
    droppedRate: samples.length === 0 ? 0 : dropped / samples.length,
    byOutcome,
    acksBy,
    inventoryBy,
    latencyMs: {
      p50: round(percentile(latencies, 50)),
      p95: round(percentile(latencies, 95)),
      p99: round(percentile(latencies, 99)),
      max: round(latencies.at(-1) ?? NaN),
      mean: round(latencies.reduce((sum, v) => sum + v, 0) / Math.max(1, latencies.length)),
    },
    windowSeconds: round(windowMs / 1000),
    perSecond: round(samples.length / Math.max(0.001, windowMs / 1000)),
    dropSamples: samples
      .filter((s) => s.outcome !== 'ok')
      .slice(0, 5)
      .map((s) => `${s.agent}: ${s.outcome} ${s.status ?? ''} ${s.code ?? ''}`.trim()),
  };
}

/** One second of a window: how many heartbeats were acked in it and how long the slowest of them took. */
export interface HeartbeatSecond {
  /** Seconds since the window's origin (the second's start). */
  readonly second: number;
  readonly acked: number;
  readonly dropped: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

/** Per-second figures, so a slow stretch can be lined up with what the controller was doing then. */
export function heartbeatTimeline(samples: readonly HeartbeatSample[], originMs: number): HeartbeatSecond[] {
  const seconds = new Map<number, HeartbeatSample[]>();
  for (const sample of samples) {
    const second = Math.floor((sample.startedAt - originMs) / 1000);
    const bucket = seconds.get(second);
    if (bucket === undefined) seconds.set(second, [sample]);
    else bucket.push(sample);
  }
  return [...seconds.entries()]
    .sort(([a], [b]) => a - b)
    .map(([second, bucket]) => {
      const latencies = bucket
        .filter((s) => s.outcome === 'ok')
        .map((s) => s.latencyMs)
        .sort((a, b) => a - b);
      return {
        second,
        acked: latencies.length,
        dropped: bucket.length - latencies.length,
        p50Ms: round(percentile(latencies, 50)),
        p99Ms: round(percentile(latencies, 99)),
        maxMs: round(latencies.at(-1) ?? NaN),
      };
    });
}

/** One simulated agent: enrolled, heartbeating, answering assignments over SSH. */
export class SimulatedAgent {
  nodeId = '';
  heartbeat: HeartbeatLoop | null = null;
  store: AssignmentStore | null = null;
  /** Assignments accepted over SSH (signed assignment.ack answered). */
  assignmentsAccepted = 0;
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<unknown> | null = null;
  private stopped = false;
  private collected: NodeInventory | undefined;
  private collectedAt = 0;

  private constructor(
    readonly name: string,
    readonly profile: SimulatedProfile,
    readonly dataDir: string,
    readonly southbound: Southbound,
    readonly nodeKeys: NodeKeyRing,
    readonly trust: ControllerTrust,
    private readonly simulator: AgentSimulator,
  ) {}

  static async create(
    simulator: AgentSimulator,
    name: string,
    profile: SimulatedProfile,
  ): Promise<SimulatedAgent> {
    const dataDir = join(simulator.options.dataDir, name);
    mkdirSync(dataDir, { recursive: true });
    const nodeKeys = await NodeKeyRing.open(dataDir);
    const trust = new ControllerTrust();
    const southbound = await startSouthbound({
      ssh: { host: simulator.host, port: 0, authorizedControllerKeys: [] },
      dataDir,
      nodeName: name,
      trust,
      nodeKeys,
      refusals: simulator.refusals,
      logger: simulator.logger,
    });
    return new SimulatedAgent(name, profile, dataDir, southbound, nodeKeys, trust, simulator);
  }

  get sshPort(): number {
    return this.southbound.server.address.port;
  }

  /**
   * Collected as the agent does: at start, then again every INVENTORY_REFRESH_MS (a new object with a new
   * `collectedAt`, so the next heartbeat sends it in full); heartbeats between refreshes carry the same object.
   */
  inventory(): NodeInventory {
    const now = Date.now();
    if (this.collected === undefined || now - this.collectedAt >= INVENTORY_REFRESH_MS) {
      this.collected = simulatedInventory(this.profile, this.name, {
        agentVersion: 'simulated',
        now: () => new Date(now),
      }).inventory;
      this.collectedAt = now;
    }
    return this.collected;
  }

  /** Enrolls with a bootstrap token (signed enroll.request, verified answer) and starts serving SSH. */
  async enroll(bootstrapToken: string): Promise<void> {
    const sim = this.simulator;
    const enrollment = await enroll({
      controllerUrl: sim.options.controllerUrl,
      controllerKeyFingerprint: sim.options.controllerKeyFingerprint,
      bootstrapToken,
      nodeName: this.name,
      labels: { 'lunanexa.io/simulated': 'true' },
      inventory: this.inventory(),
      address: sim.host,
      ssh: { port: this.sshPort, hostKeyFingerprint: this.southbound.hostKeyFingerprint },
      nodeKey: this.nodeKeys.current(),
      logger: sim.logger,
      retry: { deadlineMs: 120_000, requestTimeoutMs: 30_000 },
    });
    const publicKey = parseEd25519PublicKey(enrollment.controllerPublicKey);
    if (ed25519KeyId(publicKey) !== enrollment.controllerKeyId)
      throw new Error(`${this.name}: the controller key id does not match its key`);
    this.trust.add({ keyId: enrollment.controllerKeyId, publicKey }, 'enrollment');
    this.nodeId = enrollment.nodeId;
    this.store = await AssignmentStore.open(join(this.dataDir, ASSIGNMENTS_FILE), this.nodeId);
    const maxSkewMs = DEFAULT_MAX_SKEW_MS;
    this.southbound.serve({
      nodeId: this.nodeId,
      controllerKeys: this.trust.publicKeys,
      nodeKey: this.nodeKeys,
      store: this.store,
      replayGuard: new ReplayGuard({ windowMs: maxSkewMs }),
      maxSkewMs,
      now: () => new Date(),
      logger: sim.logger,
      messages: sim.metrics.southboundMessages,
      onAssignmentAccepted: () => {
        this.assignmentsAccepted += 1;
        sim.assignmentsAccepted += 1;
      },
    });
    const { store: credentials } = await CredentialStore.open(this.dataDir);
    this.heartbeat = new HeartbeatLoop({
      controllerUrl: sim.options.controllerUrl,
      nodeId: this.nodeId,
      intervalSeconds: sim.options.heartbeatIntervalMs / 1000,
      trust: this.trust,
      nodeKeys: this.nodeKeys,
      sequence: await HeartbeatSequence.open(this.dataDir),
      refusals: new RefusalQueue(),
      credentials,
      observe: () => this.observations(),
      inventory: () => this.inventory(),
      endpoint: () => ({ address: sim.host, sshPort: this.sshPort }),
      logger: sim.logger,
      requestTimeoutMs: sim.options.requestTimeoutMs ?? 10_000,
    });
  }

  /** What a real agent's reconciler would report, with a runtime that is Ready as soon as it is asked to run. */
  private observations(): HeartbeatObservations {
    const now = Date.now();
    const observed: ObservedAssignment[] = (this.store?.list() ?? []).map(({ assignment }) => ({
      assignmentId: assignment.id,
      deploymentId: assignment.deploymentId,
      generation: assignment.generation,
      state: assignment.intent === 'Run' && Date.parse(assignment.leaseExpiresAt) > now ? 'Ready' : 'Stopped',
      endpointPort:
        assignment.intent === 'Run' && Date.parse(assignment.leaseExpiresAt) > now
          ? SIMULATED_ENDPOINT_PORT
          : null,
      restarts: 0,
      message: null,
      inFlightRequests: 0,
    }));
    return { observedAssignments: observed, runtimes: [], acknowledge: () => undefined };
  }

  /** One timed heartbeat, counted in the simulator's samples. */
  async beatOnce(): Promise<HeartbeatSample> {
    const loop = this.heartbeat;
    if (loop === null) throw new Error(`${this.name} is not enrolled`);
    const startedAt = Date.now();
    const began = performance.now();
    const result = await loop.beat();
    const sample: HeartbeatSample = {
      agent: this.name,
      startedAt,
      latencyMs: performance.now() - began,
      outcome: result.outcome,
      status: result.status,
      code: result.code,
      ackAlg: result.ack?.signature.alg ?? null,
      inventoryAs: result.inventoryAs ?? null,
    };
    this.simulator.record(sample);
    return sample;
  }

  /** Heartbeats every interval ± jitter, the first after a random share of one interval. */
  startHeartbeats(): void {
    const { heartbeatIntervalMs, jitterMs } = this.simulator.options;
    const next = (delay: number): void => {
      if (this.stopped) return;
      this.timer = setTimeout(() => {
        const began = Date.now();
        this.beating = this.beatOnce()
          .catch((error: unknown) => this.simulator.logger.error({ err: error, agent: this.name }, 'beat'))
          .finally(() => {
            this.beating = null;
            const interval = heartbeatIntervalMs + (Math.random() * 2 - 1) * jitterMs;
            next(Math.max(0, interval - (Date.now() - began)));
          });
      }, delay);
    };
    next(Math.random() * heartbeatIntervalMs);
  }

  /** The node dies: no more heartbeats, the SSH server closes (connections dropped). */
  async kill(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    await this.beating;
    await this.southbound.close();
  }
}

/**
 * Runs `enroll(name, index)` for every name, `concurrency` at a time, and
 * throws once all have run if any failed (naming the first three).
 */
export async function enrollInLanes(
  names: readonly string[],
  concurrency: number,
  enroll: (name: string, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const failures: string[] = [];
  const lane = async (): Promise<void> => {
    while (next < names.length) {
      const index = next++;
      const name = names[index];
      if (name === undefined) return;
      try {
        await enroll(name, index);
      } catch (error: unknown) {
        failures.push(`${name}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  if (failures.length > 0)
    throw new Error(`${failures.length} agent(s) failed to enroll: ${failures.slice(0, 3).join('; ')}`);
}

export class AgentSimulator {
  readonly agents = new Map<string, SimulatedAgent>();
  readonly logger: Logger;
  readonly metrics: AgentMetrics;
  readonly refusals: SshRefusalLog;
  readonly host: string;
  assignmentsAccepted = 0;
  private samples: HeartbeatSample[] = [];
  private windowStart = Date.now();

  constructor(readonly options: AgentSimulatorOptions) {
    this.host = options.host ?? '127.0.0.1';
    this.logger =
      options.logger ??
      createLogger({ service: 'agent-simulator', level: process.env['LUNANEXA_LOG_LEVEL'] ?? 'warn' });
    this.metrics = createAgentMetrics('agent-simulator', { version: 'simulated', commit: 'simulated' });
    this.refusals = new SshRefusalLog({
      counter: this.metrics.sshRefused,
      logger: this.logger,
      now: () => new Date(),
    });
  }

  /** The DGX Spark fleet with every tenth node an 8× H100 box. */
  static profileOf(index: number): SimulatedProfile {
    return index % 10 === 9 ? 'h100-8x' : 'dgx-spark';
  }

  /**
   * Starts and enrolls `names`, `concurrency` at a time; `token(name)` issues
   * each one's bootstrap token. Heartbeats start as each agent enrolls (an
   * enrolled node becomes Ready on its first heartbeat).
   */
  async enrollAll(
    names: readonly string[],
    token: (name: string) => Promise<string>,
    concurrency: number,
  ): Promise<void> {
    await enrollInLanes(names, concurrency, async (name, index) =>
      this.enrollOne(name, index, await token(name)),
    );
  }

  /** Starts agent `name` (the `index`th of the fleet, which decides its profile), enrolls it with `token` and starts its heartbeats. */
  async enrollOne(name: string, index: number, token: string): Promise<void> {
    const agent = await SimulatedAgent.create(this, name, AgentSimulator.profileOf(index));
    this.agents.set(name, agent);
    await agent.enroll(token);
    agent.startHeartbeats();
  }

  record(sample: HeartbeatSample): void {
    this.samples.push(sample);
  }

  /** Starts a new measurement window. */
  resetStats(): void {
    this.samples = [];
    this.windowStart = Date.now();
  }

  stats(): HeartbeatStats {
    return summarizeHeartbeats(this.samples, Date.now() - this.windowStart);
  }

  /** The window's raw samples (for a dump next to the result when a run is being investigated). */
  rawSamples(): readonly HeartbeatSample[] {
    return this.samples;
  }

  async kill(names: readonly string[]): Promise<void> {
    await Promise.all(names.flatMap((name) => this.agents.get(name)?.kill() ?? []));
  }

  async stop(): Promise<void> {
    await Promise.all([...this.agents.values()].map((agent) => agent.kill()));
  }
}
