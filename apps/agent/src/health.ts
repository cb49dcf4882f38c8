import type { Architecture, GpuMemoryModel, GpuMemorySource } from '@lunanexa/contracts';
import type { InventoryReport } from './inventory/collect';
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
}

export function agentHealth(args: {
  nodeName: string;
  agentVersion: string;
  startedAt: Date;
  report: InventoryReport;
  ssh?: SshHealth | null;
  acceptedAssignments?: number;
  sshRefusals?: readonly SshRefusal[];
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
  };
}
