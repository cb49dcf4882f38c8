import type { Architecture, GpuMemoryModel, GpuMemorySource } from '@lunanexa/contracts';
import type { ControllerTrustHealth } from './controller-trust/store';
import type { HeartbeatHealth } from './heartbeat/client';
import type { InventoryReport } from './inventory/collect';
import type { ReplicaHealth } from './reconcile/reconciler';
import type { SshRefusal } from './ssh/refusals';
import type { SshHealth } from './ssh/southbound';
import { AGENT_PROTOCOL } from './version';

/** Body of `GET /health`: enough for an operator or the controller to see what this node is. */
export interface AgentHealth {
  /** `degraded` when the last inventory left GPUs out or nvidia-smi failed; `problems` says why. */
  readonly status: 'ok' | 'degraded';
  readonly nodeName: string;
  readonly agentVersion: string;
  readonly protocol: typeof AGENT_PROTOCOL;
  readonly startedAt: string;
  readonly inventory: {
    readonly architecture: Architecture;
    readonly gpuCount: number;
    readonly gpus: readonly {
      readonly name: string;
      readonly memoryModel: GpuMemoryModel;
      /** Null only when the source gave no figure; never 0 for unknown. */
      readonly totalMemoryBytes: number | null;
      readonly memorySource: GpuMemorySource;
    }[];
    readonly collectedAt: string;
    readonly problems: readonly string[];
  };
  /** The southbound SSH server; null when `ssh` is not configured (no SSH port is open). */
  readonly ssh: SshHealth | null;
  /** Accepted assignments held (persisted) by this agent. */
  readonly acceptedAssignments: number;
  /** The most recent refused SSH requests and authentications, oldest first. */
  readonly sshRefusals: readonly SshRefusal[];
  /** Who this node is for the controller. */
  readonly enrollment: EnrollmentHealth;
  /** Key id of the node key signing heartbeats and SSH replies right now. */
  readonly nodeKeyId: string | null;
  /** Null when the agent sends none (no controllerUrl, or no controller key to verify acks with). */
  readonly heartbeat: HeartbeatHealth | null;
  /**
   * The controller keys trusted now, and `untrusted-signer` (with the signer's
   * fingerprint and the recovery steps) while the controller signs with a key
   * this node does not trust — a controller key rotation it missed.
   */
  readonly controllerTrust: ControllerTrustHealth;
  /** The node credential held, from credential.json; null before the controller issued one. */
  readonly credential: CredentialHealth | null;
  /** One entry per accepted assignment: what its runtime is doing. */
  readonly replicas: readonly ReplicaHealth[];
}

export interface EnrollmentHealth {
  readonly enrolled: boolean;
  /** The enrolled node id; the node name when not enrolled. */
  readonly nodeId: string;
  readonly controllerKeyId: string | null;
  readonly enrolledAt: string | null;
  readonly workflowId: string | null;
}

export interface CredentialHealth {
  readonly serial: number;
  readonly keyId: string;
  readonly issuedAt: string;
  readonly expiresAt: string;
  readonly expired: boolean;
}

export function agentHealth(args: {
  nodeName: string;
  agentVersion: string;
  startedAt: Date;
  report: InventoryReport;
  ssh?: SshHealth | null;
  acceptedAssignments?: number;
  sshRefusals?: readonly SshRefusal[];
  enrollment?: EnrollmentHealth;
  nodeKeyId?: string | null;
  heartbeat?: HeartbeatHealth | null;
  controllerTrust?: ControllerTrustHealth;
  credential?: CredentialHealth | null;
  replicas?: readonly ReplicaHealth[];
}): AgentHealth {
  const { inventory, problems } = args.report;
  return {
    status: problems.length === 0 ? 'ok' : 'degraded',
    nodeName: args.nodeName,
    agentVersion: args.agentVersion,
    protocol: AGENT_PROTOCOL,
    startedAt: args.startedAt.toISOString(),
    inventory: {
      architecture: inventory.architecture,
      gpuCount: inventory.gpus.length,
      gpus: inventory.gpus.map((gpu) => ({
        name: gpu.name,
        memoryModel: gpu.memoryModel,
        totalMemoryBytes: gpu.totalMemoryBytes,
        memorySource: gpu.memorySource,
      })),
      collectedAt: inventory.collectedAt,
      problems,
    },
    ssh: args.ssh ?? null,
    acceptedAssignments: args.acceptedAssignments ?? 0,
    sshRefusals: args.sshRefusals ?? [],
    enrollment: args.enrollment ?? {
      enrolled: false,
      nodeId: args.nodeName,
      controllerKeyId: null,
      enrolledAt: null,
      workflowId: null,
    },
    nodeKeyId: args.nodeKeyId ?? null,
    heartbeat: args.heartbeat ?? null,
    controllerTrust: args.controllerTrust ?? { state: 'ok', trustedKeyIds: [], trustedFingerprints: [] },
    credential: args.credential ?? null,
    replicas: args.replicas ?? [],
  };
}
