import type { Assignment, RuntimeHealthCheck, RuntimeKind, RuntimeProcessState } from '@lunanexa/contracts';
import type { Logger } from '@lunanexa/observability';

/**
 * The one interface the agent uses to run an inference server for a replica,
 * whatever the runtime: start it, ask whether it is healthy, read its process
 * metrics, stop it. DESIGN.md "Runtimes".
 */

/** The runtime part of an assignment: id, kind, packaging (binary or container) and launch spec. */
export type AssignedRuntime = Assignment['runtime'];

/** Everything needed to start one replica's runtime. */
export interface RuntimeSpec {
  /** The assignment this replica serves; names the container and labels the process. */
  readonly assignmentId: string;
  readonly runtime: AssignedRuntime;
  /** The registry record's health check; DEFAULT_HEALTH_CHECK when the agent has none. */
  readonly health?: RuntimeHealthCheck;
  /** Local path of the verified model artifact, substituted for `{{modelPath}}`. */
  readonly modelPath: string;
  /** Substituted for `{{servedModelName}}`; the name the gateway sends as `model`. */
  readonly servedModelName: string;
  /** GPUs the replica is pinned to, by UUID. */
  readonly gpuUuids: readonly string[];
  /** Values for the runtime's allowlisted variables (from the assignment). */
  readonly env: Readonly<Record<string, string>>;
}

export interface RuntimeContext {
  /** Address a binary binds (`{{host}}`) and a container's port is published on. */
  readonly host: string;
  /** Host port for the runtime; when absent the adapter asks the OS for a free one. */
  readonly port?: number;
  /**
   * Variables the agent adds to the started process's environment (for a
   * container: to the engine CLI's) so it can recognise its own runtimes in
   * /proc after a restart. Agent-made, never values from the assignment.
   */
  readonly processTags?: Readonly<Record<string, string>>;
  /** Labels the agent puts on a container runtime (owner tag, launch digest) so it is found by label later. */
  readonly containerLabels?: Readonly<Record<string, string>>;
  readonly logger: Logger;
}

export type RuntimeHealthStatus = 'starting' | 'ready' | 'failing';

/** How a runtime process ended. */
export interface RuntimeExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** 0–255 as a shell would report it: the exit code, or 128 + the signal number. */
  readonly status: number;
  readonly at: Date;
}

export interface RuntimeHealth {
  readonly status: RuntimeHealthStatus;
  /** Why it is not ready, in operator words (never a payload); null when ready. */
  readonly reason: string | null;
  /** Set once the process has exited: a failing runtime says how it ended. */
  readonly exit: RuntimeExit | null;
  readonly checkedAt: Date;
}

export interface RuntimeHandle {
  readonly assignmentId: string;
  readonly runtimeId: string;
  /** Base URL of the runtime's OpenAI-compatible API, e.g. `http://127.0.0.1:41001`. */
  readonly endpoint: string;
  /** Pid of the supervised process; also its process group id. */
  readonly pid: number;
  readonly startedAt: Date;
  readonly healthCheck: RuntimeHealthCheck;
  /** Resolves (never rejects) when the process has exited, for whatever reason. */
  readonly exited: Promise<RuntimeExit>;
  /**
   * Stops the runtime: SIGTERM to its process group (a container: the engine's
   * `stop`), SIGKILL after `graceMs`, then SIGKILL to anything left in the group.
   * Idempotent; resolves with how the process ended.
   */
  stop(options?: { readonly graceMs?: number }): Promise<RuntimeExit>;
}

/** Process-level facts for heartbeats and the agent's own metrics. */
export interface RuntimeMetrics {
  readonly pid: number;
  /** Starting until the first ready health check, Running after it, Stopping, Exited. */
  readonly state: RuntimeProcessState;
  readonly startedAt: string;
  readonly uptimeSeconds: number;
  /** RuntimeExit.status once exited, else null. */
  readonly exitCode: number | null;
  /** Live processes in the runtime's process group; null where /proc is not available. */
  readonly processes: number | null;
  /** Resident memory of the process group (binaries only: a container's memory is the engine's). */
  readonly rssBytes: number | null;
  readonly healthProbes: number;
  readonly failedHealthProbes: number;
  readonly lastProbeLatencyMs: number | null;
}

export interface RuntimeAdapter {
  readonly kind: RuntimeKind;
  /**
   * Validates the spec and launches the process; resolves once it is running,
   * not once it is ready (model loading can take minutes: poll `health`, or
   * use `waitForReady`). Rejects with a RuntimeError before anything is
   * spawned when the spec is refused.
   */
  start(spec: RuntimeSpec, ctx: RuntimeContext): Promise<RuntimeHandle>;
  /** One health check through the runtime's own endpoint. */
  health(handle: RuntimeHandle): Promise<RuntimeHealth>;
  metrics(handle: RuntimeHandle): Promise<RuntimeMetrics>;
}
