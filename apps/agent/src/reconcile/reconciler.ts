import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { access, rename, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  EMPTY_ARTIFACT_STORE_CONFIG,
  fetchArtifact,
  verifyLocalFile,
  verifySyntheticArtifact,
  type ArtifactCheckResult,
  type ArtifactStoreConfig,
} from '@lunanexa/artifact-store';
import {
  canonicalJson,
  OpaqueIdSchema,
  type Assignment,
  type ObservedAssignment,
  type ReplicaState,
  type RuntimeHealthCheck,
  type RuntimeKind,
  type RuntimeLoad,
  type RuntimeObservation,
} from '@lunanexa/contracts';
import { decideArtifactSignature } from '@lunanexa/credentials';
import {
  MAX_ORPHAN_REPORTS_PER_HEARTBEAT,
  type OrphanAction,
  type OrphanReport,
} from '@lunanexa/agent-protocol';
import type { Logger } from '@lunanexa/observability';
import type { HeartbeatObservations } from '../heartbeat/client';
import type { RuntimeAdapter, RuntimeExit, RuntimeHandle, RuntimeHealth } from '../runtimes/adapter';
import { DEFAULT_HEALTH_CHECK, describeExit, probeEndpoint, probePaths } from '../runtimes/health';
import { ContainerEngine, type ContainerState } from '../runtimes/container-engine';
import { freePort } from '../runtimes/host';
import { createRuntimeAdapters, runtimeSpecFromAssignment } from '../runtimes/index';
import {
  CONTAINER_ASSIGNMENT_LABEL,
  CONTAINER_ENDPOINT_LABEL,
  CONTAINER_LAUNCH_DIGEST_LABEL,
  CONTAINER_OWNER_LABEL,
  CONTAINER_RUNTIME_LABEL,
  containerName,
  endpointFor,
} from '../runtimes/launch';
import { OpenAiCompatibleRuntimeAdapter } from '../runtimes/openai-compatible';
import { DEFAULT_STOP_GRACE_MS } from '../runtimes/supervised-runtime';
import type { AcceptedAssignment, AssignmentStore } from '../ssh/assignment-store';
import { AdoptedContainer, type AdoptedHandle } from './adopted-container';
import { AdoptedRuntime, killProcessGroup } from './adopted-runtime';
import { readRuntimeLoad } from './runtime-load';
import {
  findTaggedProcesses,
  processAgeMs,
  processArgv,
  processIdentity,
  RUNTIME_ASSIGNMENT_ENV,
  RUNTIME_OWNER_ENV,
  type TaggedProcess,
} from './proc';
import { loadRuntimeRecords, saveRuntimeRecords, type RuntimeRecord } from './records';

/** How often every assignment is looked at, whether or not anything arrived. */
export const DEFAULT_RECONCILE_INTERVAL_MS = 2_000;
/**
 * A runtime that is still starting is probed this often for its first seconds (most become ready quickly, and
 * a deployment waits for that answer), then at the reconcile interval.
 */
const STARTUP_PROBE_MS = 25;
const STARTUP_PROBE_WINDOW_MS = 3_000;
export const DEFAULT_RESTART_BACKOFF = { initialMs: 1_000, maxMs: 60_000 } as const;
/**
 * Before a serving replica told to Stop gets SIGTERM: first long enough for every gateway to have refreshed its
 * routes without it (the route snapshot refreshes every second by default; the intent change already took it out
 * of the snapshot's query), then until the runtime reports nothing running or waiting, bounded.
 */
export const DEFAULT_REPLICA_DRAIN = { deregistrationDelayMs: 2_000, timeoutMs: 30_000 } as const;
/** How often a draining runtime's /metrics is read for its in-flight count. */
const DRAIN_POLL_MS = 250;
/** A runtime ready this long has recovered: its next crash starts the backoff from the beginning. */
const STABLE_AFTER_MS = 60_000;
/** Runtimes that ended and have not yet been reported in an acknowledged heartbeat; the oldest go first. */
const MAX_EXIT_REPORTS = 256;
/**
 * How often the agent looks for runtimes of its own that no assignment slot
 * owns (a /proc scan and an engine `ps`): too costly for every pass, often
 * enough that a leftover does not hold GPU memory for long.
 */
export const DEFAULT_ORPHAN_SWEEP_INTERVAL_MS = 30_000;
/**
 * A process group or container younger than this is never swept while the
 * agent runs: whatever is that new may be one the agent is starting right now.
 */
export const DEFAULT_ORPHAN_SETTLE_MS = 10_000;
/** Sweep reports kept until a heartbeat is acknowledged; the oldest go first. */
const MAX_ORPHAN_REPORTS = 64;
/** Models live here, named by the hex of their artifact digest. */
export const MODELS_DIR = 'models';
/**
 * The fake runtime insists on a readable `--weights` file but never reads it.
 * A `fake`-format artifact is synthetic (nothing to download; its digest is
 * derived from the model version), so it gets this placeholder — outside
 * `models/`, so nothing mistakes it for an artifact.
 */
export const FAKE_WEIGHTS_PLACEHOLDER = 'fake-runtime-weights';

export interface ReconcilerOptions {
  readonly store: AssignmentStore;
  readonly dataDir: string;
  /** Address runtimes bind (`{{host}}`); the gateway reaches them at the node's advertised address. */
  readonly host: string;
  readonly logger: Logger;
  readonly adapters?: Readonly<Record<RuntimeKind, RuntimeAdapter>>;
  readonly now?: () => Date;
  readonly intervalMs?: number;
  readonly restartBackoff?: { readonly initialMs: number; readonly maxMs: number };
  readonly stopGraceMs?: number;
  /** How a serving replica told to Stop finishes its in-flight requests first (DEFAULT_REPLICA_DRAIN). */
  readonly replicaDrain?: { readonly deregistrationDelayMs: number; readonly timeoutMs: number };
  /** The health check for every runtime (the agent has no registry record of its own). */
  readonly healthCheck?: RuntimeHealthCheck;
  /** Where s3:// and oci:// artifacts are pulled from; default: nowhere (only artifacts already on disk run). */
  readonly artifactStore?: ArtifactStoreConfig;
  /** Told when a replica's state changes, so the controller can hear of it without waiting for the next heartbeat. */
  readonly onReplicaStateChange?: () => void;
  /**
   * The container engine the orphan sweep asks; by default the one the
   * openai-compatible adapter launches with, when it is installed. Null: no
   * container sweep.
   */
  readonly containerEngine?: ContainerEngine | null;
  /** Cadence of the orphan sweep while the agent runs (DEFAULT_ORPHAN_SWEEP_INTERVAL_MS); 0 turns it off. */
  readonly orphanSweepIntervalMs?: number;
  /** Minimum age of anything the periodic sweep touches (DEFAULT_ORPHAN_SETTLE_MS). */
  readonly orphanSettleMs?: number;
}

/** One assignment's replica as /health shows it. */
export interface ReplicaHealth {
  readonly assignmentId: string;
  readonly deploymentId: string;
  readonly generation: number;
  readonly intent: Assignment['intent'];
  readonly leaseExpiresAt: string;
  readonly state: ReplicaState;
  readonly endpointPort: number | null;
  readonly pid: number | null;
  /** True when this run of the agent took the runtime over from an earlier one. */
  readonly adopted: boolean;
  readonly restarts: number;
  readonly message: string | null;
  readonly inFlightRequests: number | null;
  readonly load: RuntimeLoad | null;
}

interface LiveRuntime {
  readonly handle: RuntimeHandle;
  readonly adapter: RuntimeAdapter;
  readonly adopted: boolean;
  record: RuntimeRecord;
  everReady: boolean;
  readySince: number | null;
  stopping: boolean;
}

interface Slot {
  readonly assignmentId: string;
  runtime: LiveRuntime | null;
  stopping: Promise<void> | null;
  state: ReplicaState;
  message: string | null;
  /** Restarts of this spec's runtime after it exited or never became ready. */
  restarts: number;
  /** Consecutive failures, for the backoff. */
  failures: number;
  nextStartAt: number;
  /** The runtime's last /metrics reading; its running count is the in-flight figure DrainNode waits on. */
  load: RuntimeLoad | null;
  /** The spec restarts and failures are counted for. */
  launchDigest: string | null;
  /** The artifact check this slot waits for before it may start a runtime. */
  artifactCheck: { readonly digest: string; result: ArtifactCheckResult | null } | null;
}

/** A pull or an on-disk re-verification of one artifact, shared by every assignment that needs it. */
interface ArtifactPreparation {
  readonly kind: 'pull' | 'verify';
  readonly result: Promise<ArtifactCheckResult>;
}

/**
 * What a runtime is launched from. A new generation whose launch digest is
 * unchanged (only the intent history or bookkeeping moved) keeps its runtime;
 * any change here replaces it.
 */
export function launchDigest(assignment: Assignment): string {
  const launch = {
    deploymentId: assignment.deploymentId,
    modelVersion: assignment.modelVersion,
    artifactDigest: assignment.artifact.digest,
    runtime: assignment.runtime,
    gpuUuids: assignment.gpuUuids,
    env: assignment.env,
  };
  return `sha256:${createHash('sha256').update(canonicalJson(launch), 'utf8').digest('hex')}`;
}

/** Tags this agent's runtimes by its data directory, so two agents on one machine never touch each other's. */
export function runtimeOwnerTag(dataDir: string): string {
  let path: string;
  try {
    path = realpathSync(dataDir);
  } catch {
    path = resolve(dataDir);
  }
  return createHash('sha256').update(path, 'utf8').digest('hex').slice(0, 24);
}

/**
 * Drives the runtime adapters from the accepted assignments: exactly one
 * runtime for each assignment whose intent is Run and whose lease has not
 * expired, none for the others. It runs a pass at start, after every accepted
 * assignment (`trigger`) and every interval, one pass at a time; a runtime
 * that exits is restarted with exponential backoff.
 *
 * Runtimes live in their own process groups and outlive the agent — a
 * graceful stop (an upgrade) deliberately leaves them serving, and so does
 * kill -9. At start the agent finds what an earlier run left, by the owner tag
 * in each process's environment: a runtime it recorded in runtimes.json (same
 * pid and start time) that still matches its assignment's spec and answers is
 * adopted without interruption; anything else of ours is killed, whole
 * process group, before a fresh runtime is started. So there are never two
 * runtimes for one assignment, even across crashes.
 */

/** A provenance signature that does not verify: the runtime is refused like a digest mismatch. */
interface SignatureRefusal {
  readonly ok: false;
  readonly code: 'SIGNATURE_INVALID';
  readonly digest: null;
  readonly message: string;
}

/**
 * The agent's own check of the artifact signature (libs/credentials
 * `decideArtifactSignature`, the same decision as the deploy gate) against
 * the keys the assignment carries. Null when the artifact is unsigned (the
 * controller's gate applies the tenants' unsigned policy) or verifies.
 */
function artifactSignatureRefusal(assignment: Assignment): SignatureRefusal | null {
  const signature = assignment.artifact.provenance.signature ?? null;
  if (signature === null) return null;
  const decision = decideArtifactSignature({
    ref: assignment.modelVersion,
    artifact: { digest: assignment.artifact.digest, sizeBytes: assignment.artifact.sizeBytes },
    signature,
    trustedKeys: (assignment.trustedSigningKeys ?? []).map((key) => ({ ...key, revoked: false })),
    unsignedAllowed: true,
  });
  return decision.ok
    ? null
    : { ok: false, code: 'SIGNATURE_INVALID', digest: null, message: decision.reason };
}

export class Reconciler {
  private readonly slots = new Map<string, Slot>();
  private readonly exitReports: RuntimeObservation[] = [];
  private readonly adapters: Readonly<Record<RuntimeKind, RuntimeAdapter>>;
  private readonly healthCheck: RuntimeHealthCheck;
  private readonly owner: string;
  private readonly log: Logger;
  private readonly now: () => Date;
  private timer: NodeJS.Timeout | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private sweepDue = false;
  private engine: ContainerEngine | null = null;
  private engineUnavailable = false;
  private readonly orphanReports: OrphanReport[] = [];
  private passing: Promise<void> | null = null;
  private again = false;
  private closed = false;
  private persisting: Promise<void> = Promise.resolve();
  /** Artifacts hashed since this agent started (digest → path): re-verified once per run, not per restart. */
  private readonly verifiedArtifacts = new Map<string, string>();
  private readonly preparations = new Map<string, ArtifactPreparation>();
  private readonly closing = new AbortController();

  constructor(private readonly options: ReconcilerOptions) {
    this.adapters = options.adapters ?? createRuntimeAdapters();
    this.healthCheck = options.healthCheck ?? DEFAULT_HEALTH_CHECK;
    this.owner = runtimeOwnerTag(options.dataDir);
    this.log = options.logger.child({ component: 'reconciler' });
    this.now = options.now ?? (() => new Date());
  }

  /** Takes over or clears what an earlier run left, then reconciles now and every interval. */
  async start(): Promise<void> {
    this.engine = await this.resolveEngine();
    await this.recover();
    this.trigger();
    this.timer = setInterval(() => this.trigger(), this.options.intervalMs ?? DEFAULT_RECONCILE_INTERVAL_MS);
    this.timer.unref();
    const sweepMs = this.options.orphanSweepIntervalMs ?? DEFAULT_ORPHAN_SWEEP_INTERVAL_MS;
    if (sweepMs > 0) {
      this.sweepTimer = setInterval(() => {
        this.sweepDue = true;
        this.trigger();
      }, sweepMs);
      this.sweepTimer.unref();
    }
  }

  private async resolveEngine(): Promise<ContainerEngine | null> {
    if (this.options.containerEngine !== undefined) return this.options.containerEngine;
    const adapter = this.adapters['openai-compatible'];
    if (!(adapter instanceof OpenAiCompatibleRuntimeAdapter)) return null;
    return ContainerEngine.resolve(adapter.engine, adapter.agentEnv);
  }

  /** Asks for a pass as soon as the current one (if any) ends. */
  trigger(): void {
    if (this.closed) return;
    this.again = true;
    this.passing ??= this.loop();
  }

  /** Resolves once no pass is running and none is pending (tests and shutdown). */
  async settled(): Promise<void> {
    while (this.passing !== null) await this.passing;
  }

  private async loop(): Promise<void> {
    try {
      while (this.again && !this.closed) {
        this.again = false;
        // Between passes, never during one: every runtime a pass started is in its slot by now.
        if (this.sweepDue) {
          this.sweepDue = false;
          await this.sweepOrphans().catch((error: unknown) => {
            this.log.error({ err: error }, 'the orphan sweep failed');
          });
        }
        await this.pass();
      }
    } finally {
      this.passing = null;
    }
  }

  private async pass(): Promise<void> {
    for (const entry of this.options.store.list()) {
      if (this.closed) return;
      try {
        await this.reconcile(entry);
      } catch (error: unknown) {
        this.log.error(
          { err: error, assignmentId: entry.assignment.id },
          'reconciling the assignment failed',
        );
      }
    }
  }

  private slotFor(assignmentId: string, initial: ReplicaState = 'Stopped'): Slot {
    let slot = this.slots.get(assignmentId);
    if (slot === undefined) {
      slot = {
        assignmentId,
        runtime: null,
        stopping: null,
        state: initial,
        message: null,
        restarts: 0,
        failures: 0,
        nextStartAt: 0,
        load: null,
        launchDigest: null,
        artifactCheck: null,
      };
      this.slots.set(assignmentId, slot);
    }
    return slot;
  }

  private async reconcile(entry: AcceptedAssignment): Promise<void> {
    const { assignment } = entry;
    const slot = this.slotFor(assignment.id, this.untouchedState(assignment));
    // A stop under way finishes before anything else happens to this assignment.
    if (slot.stopping !== null) return;
    const now = this.now().getTime();
    const leaseOver = Date.parse(assignment.leaseExpiresAt) <= now;
    if (assignment.intent !== 'Run' || leaseOver) {
      const reason =
        assignment.intent !== 'Run'
          ? null
          : `lease expired at ${assignment.leaseExpiresAt}; waiting for the controller to renew it`;
      if (slot.runtime !== null) {
        this.beginStop(
          slot,
          reason ?? `intent ${assignment.intent} at generation ${assignment.generation}`,
          { state: 'Stopped', message: reason },
          // A replica told to Stop while serving (a drain moving it, a scale-down) finishes what it is answering;
          // one whose lease lapsed is already out of every route and is stopped as it is.
          assignment.intent !== 'Run' && slot.state === 'Ready',
        );
      } else {
        this.transition(slot, 'Stopped', reason);
        slot.load = null;
        slot.artifactCheck = null;
      }
      return;
    }
    const digest = launchDigest(assignment);
    if (slot.runtime !== null && slot.runtime.record.launchDigest !== digest) {
      this.beginStop(slot, `generation ${assignment.generation} changed the runtime spec`, {
        state: 'Stopped',
        message: null,
      });
      return;
    }
    if (slot.launchDigest !== digest) {
      slot.launchDigest = digest;
      slot.restarts = 0;
      slot.failures = 0;
      slot.nextStartAt = 0;
    }
    if (slot.runtime !== null) {
      if (slot.runtime.record.generation !== assignment.generation) {
        slot.runtime.record = { ...slot.runtime.record, generation: assignment.generation };
        await this.persist();
      }
      await this.observe(slot);
      return;
    }
    if (now < slot.nextStartAt) return;
    const modelPath = await this.verifiedModelPath(slot, assignment);
    if (modelPath === null) return;
    await this.startRuntime(slot, assignment, modelPath);
  }

  private async startRuntime(slot: Slot, assignment: Assignment, modelPath: string): Promise<void> {
    const kind = assignment.runtime.kind;
    const adapter = this.adapters[kind];
    this.transition(slot, 'Starting', null);
    let handle: RuntimeHandle;
    let port: number;
    try {
      port = await freePort(this.options.host);
      handle = await adapter.start(
        runtimeSpecFromAssignment(assignment, { modelPath, health: this.healthCheck }),
        {
          host: this.options.host,
          port,
          processTags: { [RUNTIME_OWNER_ENV]: this.owner, [RUNTIME_ASSIGNMENT_ENV]: assignment.id },
          containerLabels: {
            [CONTAINER_OWNER_LABEL]: this.owner,
            [CONTAINER_LAUNCH_DIGEST_LABEL]: launchDigest(assignment),
            [CONTAINER_ENDPOINT_LABEL]: endpointFor(this.options.host, port),
          },
          logger: this.log,
        },
      );
    } catch (error: unknown) {
      const delayMs = this.backoff(slot);
      const reason = error instanceof Error ? error.message : String(error);
      this.log.warn(
        { event: 'runtime_start_failed', assignmentId: assignment.id, err: error, retryInMs: delayMs },
        'runtime could not be started',
      );
      this.transition(slot, 'Failed', `${reason.slice(0, 900)}; retrying in ${Math.ceil(delayMs / 1000)} s`);
      return;
    }
    const identity = await processIdentity(handle.pid);
    const runtime: LiveRuntime = {
      handle,
      adapter,
      adopted: false,
      record: {
        assignmentId: assignment.id,
        generation: assignment.generation,
        launchDigest: launchDigest(assignment),
        runtimeId: handle.runtimeId,
        kind,
        pid: handle.pid,
        // Gone already (it exits at once): no start time, and nothing left to recognise later.
        processStartTime: identity?.startTime ?? '0',
        port,
        endpoint: handle.endpoint,
        startedAt: handle.startedAt.toISOString(),
        ...(assignment.runtime.packaging.type === 'container'
          ? { container: containerName(assignment.id) }
          : {}),
      },
      everReady: false,
      readySince: null,
      stopping: false,
    };
    slot.runtime = runtime;
    void handle.exited.then((exit) => this.onExit(slot, runtime, exit));
    await this.persist();
    this.log.info(
      {
        event: 'runtime_started',
        assignmentId: assignment.id,
        generation: assignment.generation,
        runtimeId: handle.runtimeId,
        pid: handle.pid,
        endpoint: handle.endpoint,
        restarts: slot.restarts,
      },
      `runtime for ${assignment.id} started`,
    );
    this.probeSoonWhileYoung(runtime);
  }

  private probeSoonWhileYoung(runtime: LiveRuntime): void {
    if (this.closed || runtime.adopted) return;
    const age = this.now().getTime() - Date.parse(runtime.record.startedAt);
    if (age < STARTUP_PROBE_WINDOW_MS) setTimeout(() => this.trigger(), STARTUP_PROBE_MS).unref();
  }

  private artifactPath(assignment: Assignment): string {
    return join(this.options.dataDir, MODELS_DIR, assignment.artifact.digest.replace(/^sha256:/, ''));
  }

  /**
   * The model path a runtime may start on, once its bytes are known to be the
   * assignment's: a synthetic (`fake`-format) artifact must carry the digest
   * derived from its model version; a real one is pulled into
   * `models/<digest hex>` (state Pulling) when absent, and a file already
   * there is hashed again the first time this agent run uses it. Until then,
   * or when the check fails, null: the slot shows why, and a failure starts
   * with its typed code (DIGEST_MISMATCH, NOT_FOUND, DEPENDENCY_UNAVAILABLE,
   * VALIDATION_FAILED) and is retried with the restart backoff. No runtime is
   * ever started on bytes that did not hash to the assignment's digest.
   */
  private async verifiedModelPath(slot: Slot, assignment: Assignment): Promise<string | null> {
    const { artifact } = assignment;
    // A signed artifact must verify against the trusted key the controller sent with it (the
    // envelope signature covers both) before anything is pulled or started.
    const signature = artifactSignatureRefusal(assignment);
    if (signature !== null) {
      this.refuseArtifact(slot, assignment, signature);
      return null;
    }
    if (artifact.format === 'fake') {
      const check = verifySyntheticArtifact(artifact, assignment.modelVersion);
      if (!check.ok) {
        this.refuseArtifact(slot, assignment, check);
        return null;
      }
      return this.placeholderWeights();
    }
    const path = this.artifactPath(assignment);
    const pending = slot.artifactCheck;
    if (pending !== null && pending.digest === artifact.digest) {
      if (pending.result === null) return null;
      slot.artifactCheck = null;
      if (pending.result.ok) return path;
      this.refuseArtifact(slot, assignment, pending.result);
      return null;
    }
    if (this.verifiedArtifacts.get(artifact.digest) === path && (await exists(path))) return path;
    const preparation =
      this.preparations.get(artifact.digest) ?? (await this.prepareArtifact(assignment, path));
    const check: NonNullable<Slot['artifactCheck']> = { digest: artifact.digest, result: null };
    slot.artifactCheck = check;
    void preparation.result.then((result) => {
      check.result = result;
      this.trigger();
    });
    if (preparation.kind === 'pull') this.transition(slot, 'Pulling', `pulling ${artifact.uri}`);
    else this.transition(slot, 'Starting', `verifying the digest of ${path}`);
    return null;
  }

  /** Starts the pull (or the re-verification of the file on disk) in the background. */
  private async prepareArtifact(assignment: Assignment, path: string): Promise<ArtifactPreparation> {
    const { artifact } = assignment;
    const onDisk = await exists(path);
    const options = {
      signal: this.closing.signal,
      onTransferStart: ({ fromByte, totalBytes }: { fromByte: number; totalBytes: number }) => {
        if (fromByte > 0) {
          this.log.info(
            {
              event: 'artifact_pull_resumed',
              digest: artifact.digest,
              uri: artifact.uri,
              fromByte,
              totalBytes,
            },
            `resuming the pull of ${artifact.digest} at byte ${fromByte} of ${totalBytes}`,
          );
        }
      },
    };
    const started = Date.now();
    const result = (
      onDisk
        ? verifyLocalFile(path, artifact, options)
        : fetchArtifact(artifact, path, this.options.artifactStore ?? EMPTY_ARTIFACT_STORE_CONFIG, options)
    )
      .then(async (outcome) => {
        if (outcome.ok) {
          this.verifiedArtifacts.set(artifact.digest, path);
          this.log.info(
            {
              event: onDisk ? 'artifact_verified' : 'artifact_pulled',
              digest: artifact.digest,
              uri: artifact.uri,
              sizeBytes: outcome.sizeBytes,
              ms: Date.now() - started,
            },
            `model artifact ${artifact.digest} ${onDisk ? 'verified' : 'pulled and verified'}`,
          );
        } else if (onDisk && outcome.code === 'DIGEST_MISMATCH') {
          // Kept for inspection, out of the verified name: the next attempt pulls a fresh copy.
          await rename(path, `${path}.rejected`).catch(() => undefined);
        }
        return outcome;
      })
      .catch((error: unknown): ArtifactCheckResult => ({
        ok: false,
        code: 'INTERNAL',
        digest: null,
        sizeBytes: null,
        store: 'file',
        message: `checking ${path} failed: ${error instanceof Error ? error.message : String(error)}`,
      }))
      .finally(() => this.preparations.delete(artifact.digest));
    const preparation: ArtifactPreparation = { kind: onDisk ? 'verify' : 'pull', result };
    this.preparations.set(artifact.digest, preparation);
    return preparation;
  }

  private refuseArtifact(
    slot: Slot,
    assignment: Assignment,
    result: ArtifactCheckResult | SignatureRefusal,
  ): void {
    if (result.ok || this.closed) return;
    const delayMs = this.backoff(slot);
    this.log.warn(
      {
        event: 'artifact_refused',
        assignmentId: assignment.id,
        code: result.code,
        digest: assignment.artifact.digest,
        measuredDigest: result.digest,
        uri: assignment.artifact.uri,
        retryInMs: delayMs,
      },
      `not starting a runtime for ${assignment.id}: ${result.message}`,
    );
    this.transition(
      slot,
      'Failed',
      `${result.code}: ${result.message} (model artifact ${assignment.artifact.digest} for ${this.artifactPath(assignment)}); retrying in ${Math.ceil(delayMs / 1000)} s`,
    );
  }

  private async placeholderWeights(): Promise<string> {
    const placeholder = join(this.options.dataDir, FAKE_WEIGHTS_PLACEHOLDER);
    if (!(await exists(placeholder))) {
      await writeFile(placeholder, 'placeholder weights: the fake runtime never reads them\n', {
        mode: 0o600,
      });
    }
    return placeholder;
  }

  /** One health check (and, once ready, the in-flight reading) of a running runtime. */
  private async observe(slot: Slot): Promise<void> {
    const runtime = slot.runtime;
    if (runtime === null) return;
    const health = runtime.adopted
      ? await adoptedHealth(runtime.handle as AdoptedHandle, runtime.everReady)
      : await runtime.adapter.health(runtime.handle);
    // The runtime may have exited or been replaced while the probe was out.
    if (slot.runtime !== runtime || runtime.stopping) return;
    const now = this.now().getTime();
    switch (health.status) {
      case 'ready':
        if (!runtime.everReady) {
          this.log.info(
            { event: 'runtime_ready', assignmentId: slot.assignmentId, pid: runtime.handle.pid },
            `runtime for ${slot.assignmentId} is ready`,
          );
        }
        runtime.everReady = true;
        runtime.readySince ??= now;
        if (now - runtime.readySince >= STABLE_AFTER_MS) slot.failures = 0;
        this.transition(slot, 'Ready', null);
        slot.load = await readRuntimeLoad(runtime.handle.endpoint, this.now);
        return;
      case 'starting':
        this.transition(slot, 'Starting', health.reason);
        slot.load = null;
        this.probeSoonWhileYoung(runtime);
        return;
      case 'failing':
        // An exit is handled where it is noticed (onExit), with its status.
        if (health.exit !== null) return;
        runtime.readySince = null;
        if (runtime.everReady) {
          this.transition(slot, 'Unhealthy', health.reason);
          slot.load = await readRuntimeLoad(runtime.handle.endpoint, this.now);
          return;
        }
        {
          // Never became ready within its startup timeout: replace it.
          const delayMs = this.backoff(slot);
          slot.restarts += 1;
          this.beginStop(slot, health.reason ?? 'not ready in time', {
            state: 'Failed',
            message: `${health.reason ?? 'not ready in time'}; restarting in ${Math.ceil(delayMs / 1000)} s`,
          });
        }
        return;
    }
  }

  private onExit(slot: Slot, runtime: LiveRuntime, exit: RuntimeExit): void {
    if (slot.runtime !== runtime || runtime.stopping || this.closed) return;
    slot.runtime = null;
    slot.load = null;
    this.reportExit(runtime, exit);
    slot.restarts += 1;
    const delayMs = this.backoff(slot);
    this.log.warn(
      {
        event: 'runtime_exited',
        assignmentId: slot.assignmentId,
        pid: runtime.handle.pid,
        status: exit.status,
        restarts: slot.restarts,
        retryInMs: delayMs,
      },
      `runtime for ${slot.assignmentId} exited; restarting`,
    );
    this.transition(
      slot,
      'Failed',
      `${runtime.adopted ? 'adopted runtime process is gone' : describeExit(exit)}; restarting in ${Math.ceil(delayMs / 1000)} s`,
    );
    void this.persist();
    setTimeout(() => this.trigger(), delayMs).unref();
  }

  /** Advances the consecutive-failure count and returns how long to wait before the next start. */
  private backoff(slot: Slot): number {
    const { initialMs, maxMs } = this.options.restartBackoff ?? DEFAULT_RESTART_BACKOFF;
    slot.failures += 1;
    const delayMs = Math.min(maxMs, initialMs * 2 ** Math.min(slot.failures - 1, 30));
    slot.nextStartAt = this.now().getTime() + delayMs;
    return delayMs;
  }

  /**
   * Stops the slot's runtime in the background; the slot takes `after` once the process group is gone. With
   * `drainFirst` the runtime keeps answering what it was given until the gateways have let go of it and its
   * in-flight count reaches zero (bounded), so a make-before-break move loses no request.
   */
  private beginStop(
    slot: Slot,
    reason: string,
    after: { readonly state: ReplicaState; readonly message: string | null },
    drainFirst = false,
  ): void {
    const runtime = slot.runtime;
    if (runtime === null || slot.stopping !== null) return;
    runtime.stopping = true;
    slot.load = null;
    this.transition(slot, 'Stopping', reason);
    this.log.info(
      {
        event: 'runtime_stopping',
        assignmentId: slot.assignmentId,
        pid: runtime.handle.pid,
        reason,
        drainFirst,
      },
      `stopping the runtime for ${slot.assignmentId}`,
    );
    const drained = drainFirst ? this.drainRuntime(slot, runtime) : Promise.resolve();
    slot.stopping = drained
      .then(() => runtime.handle.stop({ graceMs: this.options.stopGraceMs ?? DEFAULT_STOP_GRACE_MS }))
      .then(async (exit) => {
        this.reportExit(runtime, exit);
        if (slot.runtime === runtime) slot.runtime = null;
        // On disk first: whoever sees Stopped may rely on runtimes.json no longer listing it.
        await this.persist();
        this.transition(slot, after.state, after.message);
      })
      .catch((error: unknown) => {
        this.log.error({ err: error, assignmentId: slot.assignmentId }, 'stopping the runtime failed');
      })
      .finally(() => {
        slot.stopping = null;
        this.trigger();
      });
  }

  /**
   * Waits out the route deregistration delay, then until the runtime's /metrics shows nothing running or
   * waiting, or the drain timeout. A runtime without a readable load page gets the delay only: its in-flight
   * count cannot be known, and SIGTERM's grace period is what remains for it.
   */
  private async drainRuntime(slot: Slot, runtime: LiveRuntime): Promise<void> {
    const drain = this.options.replicaDrain ?? DEFAULT_REPLICA_DRAIN;
    const started = Date.now();
    const deadline = started + Math.max(drain.timeoutMs, drain.deregistrationDelayMs);
    await delay(drain.deregistrationDelayMs);
    let inFlight: number | null = null;
    for (;;) {
      const load = await readRuntimeLoad(runtime.handle.endpoint, this.now);
      inFlight = load === null ? null : (load.running ?? 0) + (load.waiting ?? 0);
      if (inFlight === null || inFlight === 0 || Date.now() >= deadline || this.closed) break;
      await delay(DRAIN_POLL_MS);
    }
    this.log.info(
      {
        event: 'runtime_drained',
        assignmentId: slot.assignmentId,
        pid: runtime.handle.pid,
        waitedMs: Date.now() - started,
        inFlightAtStop: inFlight,
      },
      inFlight !== null && inFlight > 0
        ? `drain of ${slot.assignmentId} timed out with ${inFlight} request(s) in flight`
        : `runtime for ${slot.assignmentId} drained`,
    );
  }

  private transition(slot: Slot, state: ReplicaState, message: string | null): void {
    const changed = slot.state !== state;
    if (changed) {
      this.log.info(
        { event: 'replica_state', assignmentId: slot.assignmentId, from: slot.state, to: state, message },
        `${slot.assignmentId}: ${slot.state} → ${state}`,
      );
    }
    slot.state = state;
    slot.message = message === null ? null : message.slice(0, 1024);
    if (changed) this.options.onReplicaStateChange?.();
  }

  private reportExit(runtime: LiveRuntime, exit: RuntimeExit): void {
    this.exitReports.push({
      assignmentId: runtime.record.assignmentId,
      runtimeId: runtime.record.runtimeId,
      pid: runtime.record.pid,
      state: 'Exited',
      startedAt: runtime.record.startedAt,
      // An adopted runtime's status is not observable (it is not our child).
      exitCode: runtime.adopted ? null : exit.status,
    });
    if (this.exitReports.length > MAX_EXIT_REPORTS)
      this.exitReports.splice(0, this.exitReports.length - MAX_EXIT_REPORTS);
  }

  /** Writes runtimes.json from the slots as they are when the write runs; writes never overlap. */
  private persist(): Promise<void> {
    const run = this.persisting.then(async () => {
      const records = [...this.slots.values()].flatMap((slot) =>
        slot.runtime === null ? [] : [slot.runtime.record],
      );
      await saveRuntimeRecords(this.options.dataDir, records);
    });
    this.persisting = run.catch((error: unknown) => {
      this.log.error({ err: error }, 'could not write runtimes.json');
    });
    return this.persisting;
  }

  /**
   * Finds the runtimes an earlier run of the agent left behind (graceful stop
   * or crash): containers by their owner label through the engine, processes
   * by the owner tag in their environment. Each one still wanted as it is
   * (same assignment, same launch digest, alive and answering) is adopted;
   * every other one is stopped — a process group whole, a container with
   * `stop` and `rm -f`. What was done is queued as a `start` orphan report.
   */
  private async recover(): Promise<void> {
    const { records, problem } = await loadRuntimeRecords(this.options.dataDir);
    if (problem !== null) this.log.warn({ event: 'runtime_records_invalid' }, problem);
    const report = emptyReport('start', this.now());
    // Containers first: the `<engine> run` CLI of an adopted container is left alone (it ends with it).
    const adoptedGroups = new Set<number>();
    await this.sweepContainers(report, records, adoptedGroups, 0);
    const tagged = await findTaggedProcesses(this.owner);
    if (tagged === null) {
      this.log.warn('no /proc: runtimes of an earlier run cannot be found');
    } else {
      for (const record of records) {
        if (record.container !== undefined) continue;
        const leader = tagged.find((process) => process.pid === record.pid);
        if (
          leader === undefined ||
          leader.pgrp !== record.pid ||
          leader.startTime !== record.processStartTime ||
          leader.assignmentId !== record.assignmentId
        ) {
          continue;
        }
        if (this.unwantedReason(record.assignmentId, record.launchDigest) !== null) continue;
        if (!(await this.worthAdopting(record))) continue;
        const handle = new AdoptedRuntime(
          record.assignmentId,
          record.runtimeId,
          record.endpoint,
          record.pid,
          new Date(record.startedAt),
          this.healthCheck,
          record.processStartTime,
          this.log,
        );
        this.adopt(record, handle);
        adoptedGroups.add(record.pid);
        report.adopted.push({
          kind: 'process',
          pid: record.pid,
          container: null,
          assignmentId: record.assignmentId,
          reason: 'recorded runtime still wanted by its assignment (same launch digest) and answering',
        });
      }
      for (const pgid of await this.engineCliGroups(tagged)) adoptedGroups.add(pgid);
      await this.stopProcessGroups(tagged, adoptedGroups, records, report, 0);
    }
    this.queueReport(report);
    await this.persist();
  }

  /** Puts a runtime an earlier run left into its slot, as if this run had started it. */
  private adopt(record: RuntimeRecord, handle: AdoptedHandle): void {
    const entry = this.options.store.get(record.assignmentId);
    const slot = this.slotFor(record.assignmentId);
    const runtime: LiveRuntime = {
      handle,
      adapter: this.adapters[record.kind],
      adopted: true,
      record: { ...record, generation: entry?.assignment.generation ?? record.generation },
      everReady: false,
      readySince: null,
      stopping: false,
    };
    slot.runtime = runtime;
    slot.launchDigest = record.launchDigest;
    this.transition(slot, 'Starting', 'adopted from an earlier run of the agent');
    void handle.exited.then((exit) => this.onExit(slot, runtime, exit));
    this.log.info(
      {
        event: 'runtime_adopted',
        assignmentId: record.assignmentId,
        pid: record.pid,
        container: record.container ?? null,
        endpoint: record.endpoint,
      },
      `runtime for ${record.assignmentId} adopted`,
    );
  }

  /**
   * Why a runtime launched for `assignmentId` from `digest` must not be
   * adopted; null when its assignment wants exactly it and has no runtime yet.
   */
  private unwantedReason(assignmentId: string | null, digest: string | null): string | null {
    if (assignmentId === null) return "carries this agent's owner tag but names no assignment";
    const entry = this.options.store.get(assignmentId);
    if (entry === undefined) return `assignment ${assignmentId} is not held by this agent`;
    const { assignment } = entry;
    if (assignment.intent !== 'Run') return `assignment ${assignmentId} has intent ${assignment.intent}`;
    if (Date.parse(assignment.leaseExpiresAt) <= this.now().getTime())
      return `the lease of assignment ${assignmentId} expired`;
    if (digest === null) return `launched for assignment ${assignmentId} but not recorded`;
    if (digest !== launchDigest(assignment))
      return `launched from another spec than generation ${assignment.generation} of assignment ${assignmentId}`;
    const slot = this.slots.get(assignmentId);
    if (slot !== undefined && (slot.runtime !== null || slot.stopping !== null))
      return `assignment ${assignmentId} already has its runtime`;
    return null;
  }

  /**
   * Stops every tagged process group not in `owned` and at least `minAgeMs`
   * old, SIGTERM then SIGKILL, and records each in the report.
   */
  private async stopProcessGroups(
    tagged: readonly TaggedProcess[],
    owned: ReadonlySet<number>,
    records: readonly RuntimeRecord[],
    report: OrphanReport,
    minAgeMs: number,
  ): Promise<void> {
    const byPid = new Map(tagged.map((process) => [process.pid, process]));
    // A worker a runtime started in a session of its own (setsid) is still that runtime's.
    const descendsFromOwned = (process: TaggedProcess): boolean => {
      for (let parent = byPid.get(process.ppid), hops = 0; parent !== undefined && hops < 64; hops += 1) {
        if (owned.has(parent.pgrp)) return true;
        parent = byPid.get(parent.ppid);
      }
      return false;
    };
    const groups = new Map<number, TaggedProcess[]>();
    for (const process of tagged) {
      if (owned.has(process.pgrp) || descendsFromOwned(process)) continue;
      groups.set(process.pgrp, [...(groups.get(process.pgrp) ?? []), process]);
    }
    await Promise.all(
      [...groups].map(async ([pgid, members]) => {
        if (minAgeMs > 0) {
          const ages = await Promise.all(members.map((member) => processAgeMs(member.startTime)));
          const oldest = Math.max(...ages.map((age) => age ?? 0));
          if (oldest < minAgeMs) return;
        }
        const record = records.find((candidate) => candidate.pid === pgid);
        const assignmentId =
          record?.assignmentId ??
          members.find((member) => member.assignmentId !== null)?.assignmentId ??
          null;
        const reason =
          this.unwantedReason(assignmentId, record?.launchDigest ?? null) ??
          'recorded runtime no longer answers; a fresh one is started instead';
        this.log.warn(
          { event: 'orphan_runtime', pgid, assignmentId, recorded: record !== undefined, reason },
          'stopping a runtime of this agent that no assignment slot owns',
        );
        const gone = await killProcessGroup(pgid, this.options.stopGraceMs ?? DEFAULT_STOP_GRACE_MS);
        const action: OrphanAction = {
          kind: 'process',
          pid: pgid,
          container: null,
          assignmentId: reportableId(assignmentId),
          reason: reason.slice(0, 1024),
        };
        if (gone) report.stopped.push(action);
        else {
          this.log.error({ pgid }, 'orphan runtime survives SIGKILL');
          report.failed.push({ ...action, reason: `${action.reason}; survives SIGKILL`.slice(0, 1024) });
        }
        this.exitReports.push({
          // Null unless the agent still holds the assignment (e.g. it now says Stop).
          assignmentId:
            assignmentId !== null && this.options.store.get(assignmentId) !== undefined ? assignmentId : null,
          runtimeId: record?.runtimeId ?? `orphan-${pgid}`,
          pid: pgid,
          state: 'Exited',
          startedAt: record?.startedAt ?? null,
          exitCode: null,
        });
      }),
    );
  }

  /**
   * The engine's containers with this agent's owner label that no slot owns:
   * one still wanted by its assignment (label and launch digest match, it runs
   * and answers) is adopted and watched through the engine; every other one
   * is stopped (`stop --time`) and removed (`rm -f`). Skipped without an
   * engine; an engine that does not answer is logged and tried next sweep.
   */
  private async sweepContainers(
    report: OrphanReport,
    records: readonly RuntimeRecord[],
    adoptedGroups: Set<number>,
    minAgeMs: number,
  ): Promise<void> {
    const engine = this.engine;
    if (engine === null) return;
    let containers: ContainerState[];
    try {
      containers = await engine.list(CONTAINER_OWNER_LABEL, this.owner);
    } catch (error: unknown) {
      // A node with the CLI but no daemon (binaries only) would say so every sweep: once is enough.
      const fields = { event: 'orphan_sweep_engine_unavailable', err: error };
      const message = 'the container engine did not list containers; trying again next sweep';
      if (this.engineUnavailable) this.log.debug(fields, message);
      else this.log.warn(fields, message);
      this.engineUnavailable = true;
      return;
    }
    this.engineUnavailable = false;
    const owned = new Set(
      [...this.slots.values()].flatMap((slot) =>
        slot.runtime?.record.container === undefined ? [] : [slot.runtime.record.container],
      ),
    );
    const now = this.now().getTime();
    for (const container of containers) {
      if (this.closed) return;
      if (owned.has(container.name)) continue;
      if (minAgeMs > 0 && (container.createdAt === null || now - container.createdAt.getTime() < minAgeMs))
        continue;
      const assignmentId = container.labels[CONTAINER_ASSIGNMENT_LABEL] ?? null;
      const record = records.find((candidate) => candidate.container === container.name);
      const endpoint = container.labels[CONTAINER_ENDPOINT_LABEL] ?? record?.endpoint ?? null;
      const pid = record?.pid ?? container.pid;
      const startedAt = record?.startedAt ?? (container.createdAt ?? this.now()).toISOString();
      let reason = container.running
        ? this.unwantedReason(assignmentId, container.labels[CONTAINER_LAUNCH_DIGEST_LABEL] ?? null)
        : `not running (${container.status})`;
      if (reason === null && assignmentId !== null && containerName(assignmentId) !== container.name)
        reason = `named ${container.name}, not as the agent names assignment ${assignmentId}'s container`;
      if (reason === null && (endpoint === null || pid === null || !/^http:\/\/.+:[0-9]+$/.test(endpoint)))
        reason = 'its endpoint is not known';
      if (reason === null && endpoint !== null && !(await this.worthAdopting({ endpoint, startedAt })))
        reason = 'does not answer HTTP';
      if (reason === null && assignmentId !== null && endpoint !== null && pid !== null) {
        const entry = this.options.store.get(assignmentId);
        if (entry !== undefined) {
          const adopted: RuntimeRecord = {
            assignmentId,
            generation: entry.assignment.generation,
            launchDigest: launchDigest(entry.assignment),
            runtimeId:
              record?.runtimeId ?? container.labels[CONTAINER_RUNTIME_LABEL] ?? entry.assignment.runtime.id,
            kind: entry.assignment.runtime.kind,
            pid,
            processStartTime: record?.processStartTime ?? (await processIdentity(pid))?.startTime ?? '0',
            port: Number(new URL(endpoint).port),
            endpoint,
            startedAt,
            container: container.name,
          };
          this.adopt(
            adopted,
            new AdoptedContainer(
              assignmentId,
              adopted.runtimeId,
              endpoint,
              pid,
              new Date(startedAt),
              this.healthCheck,
              container.name,
              engine,
              this.log,
            ),
          );
          if (record !== undefined) adoptedGroups.add(record.pid);
          report.adopted.push({
            kind: 'container',
            pid: null,
            container: container.name,
            assignmentId,
            reason: 'still wanted by its assignment (same launch digest), running and answering',
          });
          continue;
        }
      }
      const why = (reason ?? 'not adoptable').slice(0, 1024);
      this.log.warn(
        { event: 'orphan_container', container: container.name, assignmentId, reason: why },
        'stopping a container of this agent that no assignment slot owns',
      );
      const action: OrphanAction = {
        kind: 'container',
        pid: null,
        container: container.name,
        assignmentId: reportableId(assignmentId),
        reason: why,
      };
      try {
        if (container.running)
          await engine.stop(container.name, this.options.stopGraceMs ?? DEFAULT_STOP_GRACE_MS);
        await engine.remove(container.name);
        report.stopped.push(action);
      } catch (error: unknown) {
        this.log.error(
          { err: error, container: container.name },
          'the orphan container could not be removed',
        );
        const detail = error instanceof Error ? error.message : String(error);
        report.failed.push({ ...action, reason: `${why}; ${detail}`.slice(0, 1024) });
      }
      if (record !== undefined) {
        this.exitReports.push({
          assignmentId:
            this.options.store.get(record.assignmentId) === undefined ? null : record.assignmentId,
          runtimeId: record.runtimeId,
          pid: record.pid,
          state: 'Exited',
          startedAt: record.startedAt,
          exitCode: null,
        });
      }
    }
  }

  /**
   * The periodic sweep, between passes: tagged process groups and labelled
   * containers that no slot owns and that are older than the settle time.
   */
  private async sweepOrphans(): Promise<void> {
    const report = emptyReport('periodic', this.now());
    const settleMs = Math.max(1, this.options.orphanSettleMs ?? DEFAULT_ORPHAN_SETTLE_MS);
    await this.sweepContainers(report, [], new Set(), settleMs);
    const tagged = await findTaggedProcesses(this.owner);
    if (tagged !== null) {
      const owned = new Set(
        [...this.slots.values()].flatMap((slot) =>
          slot.runtime === null ? [] : [slot.runtime.record.pid, slot.runtime.handle.pid],
        ),
      );
      for (const pgid of await this.engineCliGroups(tagged)) owned.add(pgid);
      await this.stopProcessGroups(tagged, owned, [], report, settleMs);
    }
    this.queueReport(report);
    if (report.adopted.length > 0) await this.persist();
  }

  /**
   * Process groups of `<engine> run --name X` CLIs whose container X a slot
   * owns: they are that runtime's, and end with it. SIGTERM to one would
   * reach the container (the CLI forwards signals), so they are never swept.
   */
  private async engineCliGroups(tagged: readonly TaggedProcess[]): Promise<number[]> {
    const names = new Set(
      [...this.slots.values()].flatMap((slot) =>
        slot.runtime?.record.container === undefined ? [] : [slot.runtime.record.container],
      ),
    );
    if (names.size === 0) return [];
    const groups: number[] = [];
    for (const process of tagged) {
      const argv = (await processArgv(process.pid)) ?? [];
      const at = argv.indexOf('--name');
      const name = at >= 0 ? argv[at + 1] : undefined;
      if (argv.includes('run') && name !== undefined && names.has(name)) groups.push(process.pgrp);
    }
    return groups;
  }

  private queueReport(report: OrphanReport): void {
    if (report.adopted.length + report.stopped.length + report.failed.length === 0) return;
    this.log.info(
      {
        event: 'orphans_reconciled',
        trigger: report.trigger,
        adopted: report.adopted.length,
        stopped: report.stopped.length,
        failed: report.failed.length,
      },
      'orphan sweep acted on runtimes no assignment slot owned',
    );
    this.orphanReports.push(report);
    if (this.orphanReports.length > MAX_ORPHAN_REPORTS)
      this.orphanReports.splice(0, this.orphanReports.length - MAX_ORPHAN_REPORTS);
    this.options.onReplicaStateChange?.();
  }

  /** Sweep reports not yet carried by an acknowledged heartbeat (tests and /health). */
  pendingOrphanReports(): readonly OrphanReport[] {
    return this.orphanReports.slice();
  }

  /**
   * Adopt only a runtime that answers HTTP (any status: a loading model may
   * say 503) or is still inside its startup timeout — a runtime that stopped
   * answering is restarted instead.
   */
  private async worthAdopting(record: {
    readonly endpoint: string;
    readonly startedAt: string;
  }): Promise<boolean> {
    const probe = await probeEndpoint(record.endpoint, probePaths(this.healthCheck), 2_000);
    if (probe.ok || /answered [0-9]{3}/.test(probe.reason) || probe.reason.startsWith('no health route'))
      return true;
    return Date.now() - Date.parse(record.startedAt) < this.healthCheck.startupTimeoutMs;
  }

  /** Before its first pass, an assignment the agent is about to start is Starting, not Stopped. */
  private untouchedState(assignment: Assignment): ReplicaState {
    return assignment.intent === 'Run' && Date.parse(assignment.leaseExpiresAt) > this.now().getTime()
      ? 'Starting'
      : 'Stopped';
  }

  /** Assignment states for heartbeats: one per accepted assignment. */
  observedAssignments(): ObservedAssignment[] {
    return this.options.store.list().map((entry) => {
      const slot = this.slots.get(entry.assignment.id);
      return {
        assignmentId: entry.assignment.id,
        deploymentId: entry.assignment.deploymentId,
        generation: entry.assignment.generation,
        state: slot?.state ?? this.untouchedState(entry.assignment),
        endpointPort: slot?.runtime?.record.port ?? null,
        restarts: slot?.restarts ?? 0,
        message: slot?.message ?? null,
        inFlightRequests: slot?.load?.running ?? null,
        load: slot?.load ?? null,
      };
    });
  }

  /** Running runtimes, and the ones that ended since the last acknowledged heartbeat. */
  heartbeatObservations(): HeartbeatObservations {
    const reported = this.exitReports.slice();
    const live: RuntimeObservation[] = [...this.slots.values()].flatMap((slot) => {
      const runtime = slot.runtime;
      if (runtime === null) return [];
      return [
        {
          assignmentId: runtime.record.assignmentId,
          runtimeId: runtime.record.runtimeId,
          pid: runtime.record.pid,
          state: runtime.stopping ? 'Stopping' : runtime.everReady ? 'Running' : 'Starting',
          startedAt: runtime.record.startedAt,
          exitCode: null,
        },
      ];
    });
    const orphanReports = this.orphanReports.slice(0, MAX_ORPHAN_REPORTS_PER_HEARTBEAT);
    return {
      observedAssignments: this.observedAssignments(),
      runtimes: [...live, ...reported],
      orphanReports,
      acknowledge: () => {
        // Only what this heartbeat carried: reports added meanwhile wait for the next one.
        const drop = reported.filter((report) => this.exitReports.includes(report));
        for (const report of drop) this.exitReports.splice(this.exitReports.indexOf(report), 1);
        for (const report of orphanReports) {
          const index = this.orphanReports.indexOf(report);
          if (index >= 0) this.orphanReports.splice(index, 1);
        }
      },
    };
  }

  health(): ReplicaHealth[] {
    return this.options.store.list().map((entry) => {
      const slot = this.slots.get(entry.assignment.id);
      return {
        assignmentId: entry.assignment.id,
        deploymentId: entry.assignment.deploymentId,
        generation: entry.assignment.generation,
        intent: entry.assignment.intent,
        leaseExpiresAt: entry.assignment.leaseExpiresAt,
        state: slot?.state ?? this.untouchedState(entry.assignment),
        endpointPort: slot?.runtime?.record.port ?? null,
        pid: slot?.runtime?.handle.pid ?? null,
        adopted: slot?.runtime?.adopted ?? false,
        restarts: slot?.restarts ?? 0,
        message: slot?.message ?? null,
        inFlightRequests: slot?.load?.running ?? null,
        load: slot?.load ?? null,
      };
    });
  }

  /**
   * Stops reconciling. By default runtimes keep running (an agent upgrade or
   * restart must not interrupt serving; the next start adopts them);
   * `stopRuntimes` stops every one of them first.
   */
  async close(options: { readonly stopRuntimes?: boolean } = {}): Promise<void> {
    this.closed = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    if (this.sweepTimer !== undefined) clearInterval(this.sweepTimer);
    // Downloads end now; each keeps its partial file for the next start to resume (fetchArtifact).
    this.closing.abort(new Error('the agent is stopping'));
    await Promise.allSettled([...this.preparations.values()].map((preparation) => preparation.result));
    await this.settled();
    await Promise.all(
      [...this.slots.values()].flatMap((slot) => (slot.stopping === null ? [] : [slot.stopping])),
    );
    if (options.stopRuntimes === true) {
      await Promise.all(
        [...this.slots.values()].map(async (slot) => {
          const runtime = slot.runtime;
          if (runtime === null) return;
          runtime.stopping = true;
          await runtime.handle.stop({ graceMs: this.options.stopGraceMs ?? DEFAULT_STOP_GRACE_MS });
          slot.runtime = null;
          slot.state = 'Stopped';
        }),
      );
    } else {
      for (const slot of this.slots.values()) {
        if (slot.runtime?.adopted === true) (slot.runtime.handle as AdoptedHandle).release();
      }
    }
    await this.persisting;
    if (options.stopRuntimes === true) await this.persist();
  }
}

async function adoptedHealth(handle: AdoptedHandle, everReady: boolean): Promise<RuntimeHealth> {
  const checkedAt = (): Date => new Date();
  const before = handle.exitStatus();
  if (before !== null)
    return { status: 'failing', reason: 'runtime process is gone', exit: before, checkedAt: checkedAt() };
  const check = handle.healthCheck;
  const probe = await probeEndpoint(handle.endpoint, probePaths(check), Math.min(check.intervalMs, 5_000));
  const after = handle.exitStatus();
  if (after !== null)
    return { status: 'failing', reason: 'runtime process is gone', exit: after, checkedAt: checkedAt() };
  if (probe.ok) return { status: 'ready', reason: null, exit: null, checkedAt: checkedAt() };
  const withinStartup = Date.now() - handle.startedAt.getTime() < check.startupTimeoutMs;
  if (!everReady && withinStartup)
    return { status: 'starting', reason: probe.reason, exit: null, checkedAt: checkedAt() };
  return { status: 'failing', reason: probe.reason, exit: null, checkedAt: checkedAt() };
}

function emptyReport(trigger: OrphanReport['trigger'], at: Date): OrphanReport {
  return { sweptAt: at.toISOString(), trigger, adopted: [], stopped: [], failed: [] };
}

/** A tag or label is set by whoever started the process; only a well-formed id goes into a report. */
function reportableId(assignmentId: string | null): string | null {
  return assignmentId !== null && OpaqueIdSchema.safeParse(assignmentId).success ? assignmentId : null;
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
