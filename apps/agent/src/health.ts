import type { Architecture, GpuMemoryModel, GpuMemorySource } from '@lunanexa/contracts';
import type { InventoryReport } from './inventory/collect';
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
}

export function agentHealth(args: {
  nodeName: string;
  agentVersion: string;
  startedAt: Date;
  report: InventoryReport;
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
  };
}
