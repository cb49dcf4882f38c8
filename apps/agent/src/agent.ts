import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import {
  DEFAULT_MAX_SKEW_MS,
  ed25519KeyId,
  parseEd25519PublicKey,
  ReplayGuard,
} from '@lunanexa/agent-protocol';
import {
  DEFAULT_HEARTBEAT_INTERVAL_SECONDS,
  type NodeInventory,
  type RuntimeHealthCheck,
  type RuntimeKind,
} from '@lunanexa/contracts';
import type { ArtifactStoreConfig } from '@lunanexa/artifact-store';
import type { Logger } from '@lunanexa/observability';
import { advertisedAddress, type AgentConfig } from './config';
import { enroll, type EnrollRetryPolicy } from './enrollment/client';
import { loadEnrollment, saveEnrollment, type Enrollment } from './enrollment/state';
import { agentHealth, type AgentHealth, type CredentialHealth } from './health';
import { HeartbeatLoop } from './heartbeat/client';
import { CredentialStore } from './heartbeat/credential';
import { RefusalQueue, refusalFromSsh } from './heartbeat/refusal-queue';
import { HeartbeatSequence } from './heartbeat/sequence';
import { AGENT_SERVICE, createAgentHttpServer } from './http-server';
import { collectNvidiaInventory, type InventoryReport } from './inventory/collect';
import { systemHostProbe, type HostProbe } from './inventory/host';
import { simulatedInventory } from './inventory/simulated';
import { GpuTelemetryCollector, type TelemetryProbe } from './telemetry/collect';
import { TelemetrySampler } from './telemetry/sampler';
import { simulatedTelemetryProbe, type SimulatedLoad } from './telemetry/simulated';
import { systemTelemetryProbe } from './telemetry/system-probe';
import { createAgentMetrics } from './metrics';
import { Reconciler } from './reconcile/reconciler';
import type { RuntimeAdapter } from './runtimes/adapter';
import { ASSIGNMENTS_FILE, AssignmentStore, type AcceptedAssignment } from './ssh/assignment-store';
import { NodeKeyRing } from './ssh/keys';
import type { OnAssignmentAccepted } from './ssh/protocol-channel';
import { SshRefusalLog } from './ssh/refusals';
import type { SshServerLimits } from './ssh/server';
import { startSouthbound, type Southbound } from './ssh/southbound';
import { ControllerKeyTrustStore, fingerprintOfKeyId, keyIdOfBlob } from './controller-trust/store';
import type { ControllerTrust } from './ssh/trust';

export interface AgentOptions {
  readonly config: AgentConfig;
  /** The config file the agent was started with; named in recovery steps (`trust-controller-key --config …`). */
  readonly configFile?: string;
  readonly logger: Logger;
  readonly agentVersion: string;
  readonly commit: string;
  /** The machine to inventory when `inventory.source` is `nvidia-smi`; tests pass captured outputs. */
  readonly probe?: HostProbe;
  /**
   * Where GPU telemetry is read when `inventory.source` is `nvidia-smi`: the
   * real nvidia-smi unless a test passes captured outputs. A test that passes
   * only `probe` gets no telemetry rather than a real nvidia-smi.
   */
  readonly telemetryProbe?: TelemetryProbe;
  readonly now?: () => Date;
  /**
   * Single-use token to enroll with when `<dataDir>/enrollment.json` does not
   * exist yet; ignored (with a log line) once the agent is enrolled.
   */
  readonly bootstrapToken?: string | null;
  /**
   * Called after an assignment arriving over SSH is persisted and
   * acknowledged (the reconciler is told in any case). Assignments persisted
   * before a restart are in `RunningAgent.assignments()` from the start.
   */
  readonly onAssignmentAccepted?: OnAssignmentAccepted;
  /** Envelope clock-skew window (default DEFAULT_MAX_SKEW_MS); tests shorten it. */
  readonly maxSkewMs?: number;
  readonly sshLimits?: Partial<SshServerLimits>;
  readonly enrollRetry?: Partial<EnrollRetryPolicy>;
  /** Aborts a start still under way (a signal arrived while enrolling): startAgent then rejects with its reason. */
  readonly signal?: AbortSignal;
  readonly heartbeatRequestTimeoutMs?: number;
  /** Where model artifacts are pulled from (main.ts reads it from the environment); default: nowhere. */
  readonly artifactStore?: ArtifactStoreConfig;
  readonly reconcile?: {
    readonly intervalMs?: number;
    readonly healthCheck?: RuntimeHealthCheck;
    readonly restartBackoff?: { readonly initialMs: number; readonly maxMs: number };
    readonly stopGraceMs?: number;
    /** Overrides the config file's replicaDrain (tests shorten it). */
    readonly replicaDrain?: { readonly deregistrationDelayMs: number; readonly timeoutMs: number };
    readonly adapters?: Readonly<Record<RuntimeKind, RuntimeAdapter>>;
    readonly orphanSweepIntervalMs?: number;
    readonly orphanSettleMs?: number;
  };
}

export interface RunningAgent {
  readonly address: AddressInfo;
  /** The SSH server's address; null when `ssh` is not configured. */
  readonly sshAddress: AddressInfo | null;
  /** The enrolled node id, or the node name when the agent is not enrolled. */
  readonly nodeId: string;
  readonly enrollment: Enrollment | null;
  /** Null for an agent with neither SSH nor an enrollment: it signs nothing. */
  readonly nodeKeys: NodeKeyRing | null;
  readonly reconciler: Reconciler;
  /** Null when the agent sends no heartbeats (no controllerUrl or no trusted controller key). */
  readonly heartbeat: HeartbeatLoop | null;
  health(): AgentHealth;
  /** Every accepted assignment, reloaded from `<dataDir>/assignments.json` at start; ordered by id. */
  assignments(): readonly AcceptedAssignment[];
  /**
   * Stops heartbeats, reconciling, the HTTP and SSH servers. Runtimes are left
   * running (the next start adopts them) unless `stopRuntimes` is set.
   */
  close(options?: { readonly stopRuntimes?: boolean }): Promise<void>;
}

/**
 * A setting the operator must add or change before the agent can start
 * (exit 78, naming `field`): e.g. no bootstrap token and nothing to trust.
 */
export class AgentSetupError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'AgentSetupError';
  }
}

/** How long open keep-alive connections may linger after shutdown starts. */
const SHUTDOWN_GRACE_MS = 5_000;

export function inventorySource(options: AgentOptions): () => Promise<InventoryReport> {
  const now = options.now ?? (() => new Date());
  const { inventory } = options.config;
  switch (inventory.source) {
    case 'simulated':
      return () =>
        Promise.resolve(
          simulatedInventory(inventory.profile, options.config.nodeName, {
            agentVersion: options.agentVersion,
            now,
          }),
        );
    case 'nvidia-smi': {
      const probe = options.probe ?? systemHostProbe();
      return () => collectNvidiaInventory(probe, { agentVersion: options.agentVersion, now });
    }
  }
}

/** A heartbeat waits this long for fresh GPU figures at most (a quarter of the interval if that is shorter). */
const TELEMETRY_WAIT_MS = 2_000;
/** Figures older than this many heartbeat intervals are not sent at all. */
const TELEMETRY_MAX_AGE_INTERVALS = 3;

/** The load a simulated GPU shows: Ready replicas, their in-flight requests and runtime processes. */
export function simulatedLoadOf(reconciler: Reconciler): SimulatedLoad {
  const observations = reconciler.heartbeatObservations();
  const ready = observations.observedAssignments.filter((assignment) => assignment.state === 'Ready');
  return {
    readyRuntimes: ready.length,
    inFlightRequests: ready.reduce((sum, assignment) => sum + (assignment.inFlightRequests ?? 0), 0),
    pids: observations.runtimes.flatMap((runtime) =>
      runtime.state === 'Running' && runtime.pid !== null ? [runtime.pid] : [],
    ),
  };
}

/** The GPU telemetry source that matches the inventory's; null when there is nothing to read. */
function telemetrySampler(
  options: AgentOptions,
  inventory: () => NodeInventory,
  reconciler: Reconciler,
  intervalSeconds: number,
): TelemetrySampler | null {
  const { config } = options;
  const now = options.now ?? (() => new Date());
  let probe: TelemetryProbe | null;
  if (config.inventory.source === 'simulated') {
    probe = simulatedTelemetryProbe({
      inventory,
      dataDir: config.dataDir,
      load: () => simulatedLoadOf(reconciler),
    });
  } else {
    probe = options.telemetryProbe ?? (options.probe === undefined ? systemTelemetryProbe() : null);
  }
  if (probe === null) return null;
  const collector = new GpuTelemetryCollector({
    probe,
    inventory,
    now,
    simulated: config.inventory.source === 'simulated',
  });
  return new TelemetrySampler({
    collect: () => collector.collect(),
    timeoutMs: Math.min(TELEMETRY_WAIT_MS, (intervalSeconds * 1000) / 4),
    maxAgeMs: intervalSeconds * 1000 * TELEMETRY_MAX_AGE_INTERVALS,
    logger: options.logger,
  });
}

/** What must hold before anything listens: a token the agent cannot use, or nothing to trust, is the operator's to fix. */
function checkSetup(
  config: AgentConfig,
  enrolled: boolean,
  token: string | null,
  trust: ControllerTrust,
): void {
  if (enrolled) {
    if (config.controllerUrl === undefined) {
      throw new AgentSetupError(
        'controllerUrl',
        'is required once the agent is enrolled (heartbeats go there)',
      );
    }
    return;
  }
  if (token !== null) {
    if (config.ssh === undefined) {
      throw new AgentSetupError('ssh', 'is required to enroll: the controller reaches the node over SSH');
    }
    if (config.controllerUrl === undefined) {
      throw new AgentSetupError(
        'controllerUrl',
        'is required to enroll: the API that issued the bootstrap token',
      );
    }
    if (config.controllerKeyFingerprint === undefined) {
      throw new AgentSetupError(
        'controllerKeyFingerprint',
        'is required to enroll: the SHA256:… fingerprint of the controller key shown with the bootstrap token',
      );
    }
    return;
  }
  if (config.ssh !== undefined && trust.size === 0) {
    throw new AgentSetupError(
      '--bootstrap-token',
      'the agent is not enrolled and ssh.authorizedControllerKeys is empty: pass --bootstrap-token ' +
        '(or --bootstrap-token-file, or LUNANEXA_BOOTSTRAP_TOKEN) to enroll it',
    );
  }
}

/**
 * Boots the agent: first inventory (a failure stops the boot: an agent that
 * cannot describe its node has nothing to offer), node key, HTTP server, SSH
 * server (listening before enrollment, since the request carries its port),
 * enrollment when needed, assignment store, reconciler (which takes over
 * runtimes an earlier run left, even with the controller away), protocol
 * channel and heartbeats. A failed refresh of the inventory keeps the last
 * good one and logs why; the collected-at timestamp shows its age.
 */
export async function startAgent(options: AgentOptions): Promise<RunningAgent> {
  const { config, logger } = options;
  const now = options.now ?? (() => new Date());
  const startedAt = now();
  const collect = inventorySource(options);
  const metrics = createAgentMetrics(AGENT_SERVICE, {
    version: options.agentVersion,
    commit: options.commit,
  });

  let report = await collect();
  metrics.recordInventory(report);
  logInventory(logger, report, null);

  let enrollment = await loadEnrollment(config.dataDir, config.nodeName);
  // An agent with neither SSH nor an enrollment signs nothing (inventory only), so it needs no key on disk.
  const nodeKeys =
    config.ssh !== undefined || enrollment !== null ? await NodeKeyRing.open(config.dataDir) : null;
  if (nodeKeys?.current().created === true) {
    logger.info({ keyId: nodeKeys.current().keyId }, 'node signing key generated');
  }
  const token = options.bootstrapToken ?? null;
  // Config keys, the enrolled key and keys learnt from controller key rotations (controller-trust.json),
  // minus the ones a rotation retired.
  const controllerKeys = await ControllerKeyTrustStore.open({
    dataDir: config.dataDir,
    configured: (config.ssh?.authorizedControllerKeys ?? []).map((entry) => ({
      keyId: entry.keyId,
      publicKey: parseEd25519PublicKey(entry.publicKey),
    })),
    logger,
    now,
    ...(options.configFile === undefined ? {} : { configFile: options.configFile }),
  });
  const trust = controllerKeys.trust;
  if (enrollment !== null) {
    trustEnrolledController(controllerKeys, enrollment);
    if (token !== null) {
      logger.info(
        { nodeId: enrollment.nodeId },
        'already enrolled; the bootstrap token is not needed and is ignored',
      );
    }
  }
  checkSetup(config, enrollment !== null, token, trust);

  const cleanup: (() => Promise<void>)[] = [];
  const unwind = async (): Promise<void> => {
    for (const step of cleanup.reverse()) await step().catch(() => undefined);
  };

  let store: AssignmentStore | null = null;
  let reconciler: Reconciler | null = null;
  let heartbeat: HeartbeatLoop | null = null;
  let credentials: CredentialStore | null = null;
  let southbound: Southbound | null = null;
  const refusals = new SshRefusalLog({ counter: metrics.sshRefused, logger, now });
  const refusalQueue = new RefusalQueue();
  refusals.subscribe((refusal) => refusalQueue.push(refusalFromSsh(refusal)));

  const health = (): AgentHealth => {
    const held = credentials?.current() ?? null;
    const credential: CredentialHealth | null =
      held === null
        ? null
        : {
            serial: held.document.serial,
            keyId: held.document.keyId,
            issuedAt: held.document.issuedAt,
            expiresAt: held.document.expiresAt,
            expired: Date.parse(held.document.expiresAt) <= now().getTime(),
          };
    return agentHealth({
      nodeName: config.nodeName,
      agentVersion: options.agentVersion,
      startedAt,
      report,
      ssh: southbound?.health() ?? null,
      acceptedAssignments: store?.list().length ?? 0,
      sshRefusals: refusals.recent(),
      enrollment: {
        enrolled: enrollment !== null,
        nodeId: enrollment?.nodeId ?? config.nodeName,
        controllerKeyId: enrollment?.controllerKeyId ?? null,
        enrolledAt: enrollment?.enrolledAt ?? null,
        workflowId: enrollment?.workflowId ?? null,
      },
      nodeKeyId: nodeKeys?.current().keyId ?? null,
      heartbeat: heartbeat?.health() ?? null,
      controllerTrust: controllerKeys.health(),
      credential,
      replicas: reconciler?.health() ?? [],
    });
  };

  // Listening first: a taken port fails the boot before a single-use token is spent.
  const server = createAgentHttpServer({ health, metrics, logger });
  server.listen(config.listen.port, config.listen.host);
  await once(server, 'listening');
  const address = server.address() as AddressInfo;
  cleanup.push(() => closeHttpServer(server));

  try {
    if (config.ssh !== undefined && nodeKeys !== null) {
      southbound = await startSouthbound({
        ssh: config.ssh,
        dataDir: config.dataDir,
        nodeName: config.nodeName,
        trust,
        nodeKeys,
        refusals,
        logger,
        ...(options.sshLimits === undefined ? {} : { limits: options.sshLimits }),
        onUntrustedKey: (offered) =>
          controllerKeys.untrustedSigner({
            keyId: keyIdOfBlob(offered),
            fingerprint: fingerprintOfKeyId(keyIdOfBlob(offered)),
            via: 'ssh-publickey',
          }),
      });
      const started = southbound;
      cleanup.push(() => started.close());
    }

    if (enrollment === null && token !== null && southbound !== null && nodeKeys !== null) {
      // checkSetup made sure these are set.
      const controllerUrl = config.controllerUrl as string;
      const fingerprint = config.controllerKeyFingerprint as string;
      if (/^(0\.0\.0\.0|::)$/.test(advertisedAddress(config))) {
        logger.warn(
          { advertiseAddress: advertisedAddress(config) },
          'enrolling with a wildcard address: set advertiseAddress to the address the controller and gateway reach',
        );
      }
      enrollment = await enroll({
        controllerUrl,
        controllerKeyFingerprint: fingerprint,
        bootstrapToken: token,
        nodeName: config.nodeName,
        labels: config.labels,
        inventory: report.inventory,
        address: advertisedAddress(config),
        ssh: { port: southbound.server.address.port, hostKeyFingerprint: southbound.hostKeyFingerprint },
        nodeKey: nodeKeys.current(),
        logger,
        now,
        ...(options.enrollRetry === undefined ? {} : { retry: options.enrollRetry }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
      await saveEnrollment(config.dataDir, enrollment);
      trustEnrolledController(controllerKeys, enrollment);
    }

    const nodeId = enrollment?.nodeId ?? config.nodeName;
    // Loaded whether or not SSH is configured: the node keeps its desired state while the controller is away.
    store = await AssignmentStore.open(join(config.dataDir, ASSIGNMENTS_FILE), nodeId);
    if (store.list().length > 0) {
      logger.info({ assignments: store.summaries() }, 'persisted assignments reloaded');
    }

    const reconcile = options.reconcile ?? {};
    reconciler = new Reconciler({
      store,
      dataDir: config.dataDir,
      host: advertisedAddress(config),
      logger,
      now,
      ...(reconcile.intervalMs === undefined ? {} : { intervalMs: reconcile.intervalMs }),
      ...(reconcile.healthCheck === undefined ? {} : { healthCheck: reconcile.healthCheck }),
      ...(reconcile.restartBackoff === undefined ? {} : { restartBackoff: reconcile.restartBackoff }),
      ...(reconcile.stopGraceMs === undefined ? {} : { stopGraceMs: reconcile.stopGraceMs }),
      ...(reconcile.replicaDrain !== undefined
        ? { replicaDrain: reconcile.replicaDrain }
        : config.replicaDrain === undefined
          ? {}
          : {
              replicaDrain: {
                deregistrationDelayMs: config.replicaDrain.deregistrationDelayMs,
                timeoutMs: config.replicaDrain.timeoutSeconds * 1000,
              },
            }),
      ...(reconcile.adapters === undefined ? {} : { adapters: reconcile.adapters }),
      ...(reconcile.orphanSweepIntervalMs !== undefined
        ? { orphanSweepIntervalMs: reconcile.orphanSweepIntervalMs }
        : config.orphanSweepSeconds !== undefined
          ? { orphanSweepIntervalMs: config.orphanSweepSeconds * 1000 }
          : {}),
      ...(reconcile.orphanSettleMs === undefined ? {} : { orphanSettleMs: reconcile.orphanSettleMs }),
      ...(options.artifactStore === undefined ? {} : { artifactStore: options.artifactStore }),
      onReplicaStateChange: () => heartbeat?.reportChange(),
    });
    await reconciler.start();
    const running = reconciler;
    metrics.setReplicaStates(() => running.observedAssignments().map((entry) => entry.state));
    cleanup.push(() => running.close());

    if (southbound !== null && nodeKeys !== null) {
      const maxSkewMs = options.maxSkewMs ?? DEFAULT_MAX_SKEW_MS;
      const listener = options.onAssignmentAccepted;
      southbound.serve({
        nodeId,
        controllerKeys: trust.publicKeys,
        nodeKey: nodeKeys,
        store,
        replayGuard: new ReplayGuard({ windowMs: maxSkewMs }),
        maxSkewMs,
        now,
        logger: logger.child({ component: 'southbound' }),
        messages: metrics.southboundMessages,
        onAssignmentAccepted: async (event) => {
          running.trigger();
          await listener?.(event);
        },
        onRefusal: (refusal) => refusalQueue.push(refusal),
        onControllerKeyNotice: (notice, signerKeyId) =>
          controllerKeys.applyNotice(notice, signerKeyId, 'assignment.put'),
        onUntrustedSigner: (keyId) => controllerKeys.untrustedSigner({ keyId, via: 'envelope' }),
        onTrustedSigner: (keyId) => controllerKeys.trustedSigner(keyId),
      });
    }

    const opened = await CredentialStore.open(config.dataDir);
    credentials = opened.store;
    if (opened.problem !== null) logger.warn({ event: 'credential_unreadable' }, opened.problem);

    if (config.controllerUrl !== undefined && trust.size > 0 && nodeKeys !== null) {
      const sshPort = southbound?.server.address.port ?? null;
      // An agent enrolled under a longer default keeps no slower pace than this release's: the controller's
      // lease (and how fast a dead node is routed around) assumes it.
      const intervalSeconds =
        config.heartbeatIntervalSeconds ??
        Math.min(
          enrollment?.heartbeatIntervalSeconds ?? DEFAULT_HEARTBEAT_INTERVAL_SECONDS,
          DEFAULT_HEARTBEAT_INTERVAL_SECONDS,
        );
      const sampler = telemetrySampler(options, () => report.inventory, running, intervalSeconds);
      heartbeat = new HeartbeatLoop({
        controllerUrl: config.controllerUrl,
        nodeId,
        intervalSeconds,
        trust,
        controllerKeys,
        nodeKeys,
        sequence: await HeartbeatSequence.open(config.dataDir),
        refusals: refusalQueue,
        credentials,
        observe: () => running.heartbeatObservations(),
        inventory: () => report.inventory,
        ...(sampler === null ? {} : { gpuTelemetry: () => sampler.sample() }),
        ...(sshPort === null ? {} : { endpoint: () => ({ address: advertisedAddress(config), sshPort }) }),
        logger,
        now,
        onResult: (result) => metrics.heartbeats.inc({ outcome: result.outcome }),
        ...(options.heartbeatRequestTimeoutMs === undefined
          ? {}
          : { requestTimeoutMs: options.heartbeatRequestTimeoutMs }),
      });
      heartbeat.start();
      const beating = heartbeat;
      cleanup.push(() => beating.close());
    } else if (enrollment === null) {
      logger.info(
        { controllerUrl: config.controllerUrl ?? null },
        'not enrolled and no controller key configured: no heartbeats (pass --bootstrap-token to enroll)',
      );
    }
  } catch (error: unknown) {
    await unwind();
    throw error;
  }

  let closing = false;
  let timer: NodeJS.Timeout | undefined;
  const scheduleRefresh = (): void => {
    // setTimeout after each run, not setInterval: a slow nvidia-smi never overlaps itself.
    timer = setTimeout(() => {
      collect()
        .then((next) => {
          const previous = report;
          report = next;
          metrics.recordInventory(next);
          logInventory(logger, next, previous);
        })
        .catch((error: unknown) => {
          logger.error({ err: error }, 'inventory refresh failed; keeping the last inventory');
        })
        .finally(() => {
          if (!closing) scheduleRefresh();
        });
    }, config.inventory.refreshIntervalSeconds * 1000);
    timer.unref();
  };
  scheduleRefresh();

  const assignmentStore = store;
  const runningReconciler = reconciler;
  return {
    address,
    sshAddress: southbound?.server.address ?? null,
    nodeId: enrollment?.nodeId ?? config.nodeName,
    enrollment,
    nodeKeys,
    reconciler: runningReconciler,
    heartbeat,
    health,
    assignments: () => assignmentStore.list(),
    async close(closeOptions = {}) {
      closing = true;
      if (timer !== undefined) clearTimeout(timer);
      await heartbeat?.close();
      // Runtimes outlive a graceful stop on purpose: an agent upgrade must not interrupt serving.
      await runningReconciler.close({ stopRuntimes: closeOptions.stopRuntimes === true });
      await southbound?.close();
      await closeHttpServer(server);
    },
  };
}

function trustEnrolledController(controllerKeys: ControllerKeyTrustStore, enrollment: Enrollment): void {
  const publicKey = parseEd25519PublicKey(enrollment.controllerPublicKey);
  // loadEnrollment and the enrollment client both checked this; a second look costs nothing.
  if (ed25519KeyId(publicKey) !== enrollment.controllerKeyId) {
    throw new Error('the enrolled controller key id does not match its key');
  }
  controllerKeys.trustEnrolled({ keyId: enrollment.controllerKeyId, publicKey });
}

async function closeHttpServer(server: ReturnType<typeof createAgentHttpServer>): Promise<void> {
  if (!server.listening) return;
  const closed = once(server, 'close');
  server.close();
  server.closeIdleConnections();
  const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
  force.unref();
  await closed;
  clearTimeout(force);
}

/** Logs the first inventory, and later ones only when their problems change, so a steady node stays quiet. */
function logInventory(logger: Logger, report: InventoryReport, previous: InventoryReport | null): void {
  const { inventory, problems } = report;
  const summary = {
    architecture: inventory.architecture,
    gpuCount: inventory.gpus.length,
    gpus: inventory.gpus.map((gpu) => ({
      index: gpu.index,
      name: gpu.name,
      memoryModel: gpu.memoryModel,
      totalMemoryBytes: gpu.totalMemoryBytes,
      memorySource: gpu.memorySource,
    })),
  };
  const changed = previous === null || problems.join('\n') !== previous.problems.join('\n');
  if (!changed) return;
  if (problems.length > 0) logger.warn({ inventory: summary, problems }, 'inventory is incomplete');
  else
    logger.info(
      { inventory: summary },
      previous === null ? 'inventory collected' : 'inventory problems resolved',
    );
}
