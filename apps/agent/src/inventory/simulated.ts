import { createHash } from 'node:crypto';
import {
  AGENT_PROTOCOL_VERSION,
  NodeInventorySchema,
  type GpuInventory,
  type NodeInventory,
} from '@lunanexa/contracts';
import type { InventoryReport } from './collect';

/**
 * Simulated hardware for demos, tests and fleet-scale load runs. Figures are
 * the real machines' (HARDWARE.md) so placement sees realistic sizes; every
 * memory source says `simulated` so nothing downstream mistakes them for
 * measurements.
 */
export const SIMULATED_PROFILES = ['dgx-spark', 'h100-8x'] as const;
export type SimulatedProfile = (typeof SIMULATED_PROFILES)[number];

const KIB = 1024;
const MIB = 1024 * 1024;

/**
 * GPU UUIDs derived from node name, profile and index: stable across restarts
 * (placement pins replicas by UUID) and distinct across simulated nodes.
 */
export function simulatedGpuUuid(nodeName: string, profile: SimulatedProfile, index: number): string {
  const hex = createHash('sha256')
    .update(`lunanexa-simulated-gpu\0${nodeName}\0${profile}\0${index}`)
    .digest('hex');
  return `GPU-${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

interface ProfileShape {
  readonly inventory: Omit<NodeInventory, 'gpus' | 'agentVersion' | 'collectedAt'>;
  readonly gpus: (nodeName: string) => GpuInventory[];
}

/** DGX Spark: one GB10 whose capacity is the node's MemTotal; no MIG. */
const DGX_SPARK_MEM_TOTAL_BYTES = 127_600_748 * KIB;
const DGX_SPARK_MEM_AVAILABLE_BYTES = 119_245_932 * KIB;

/** H100 80GB HBM3 as nvidia-smi reports it; the usable free figure is lower than total by the driver's reservation. */
const H100_TOTAL_BYTES = 81_559 * MIB;
const H100_FREE_BYTES = 81_004 * MIB;

const PROFILES: Readonly<Record<SimulatedProfile, ProfileShape>> = {
  'dgx-spark': {
    inventory: {
      architecture: 'arm64',
      cpu: { model: 'Cortex-X925 + Cortex-A725', cores: 20 },
      systemMemory: {
        totalBytes: DGX_SPARK_MEM_TOTAL_BYTES,
        availableBytes: DGX_SPARK_MEM_AVAILABLE_BYTES,
        source: 'simulated',
      },
      // Matches libs/contracts fixtures (node-inventory.gb10-unified.json).
      os: { name: 'DGX OS', version: '24.04', kernel: '6.11.0-1016-nvidia' },
    },
    gpus: (nodeName) => [
      {
        name: 'NVIDIA GB10',
        uuid: simulatedGpuUuid(nodeName, 'dgx-spark', 0),
        index: 0,
        computeCapability: '12.1',
        memoryModel: 'unified',
        totalMemoryBytes: DGX_SPARK_MEM_TOTAL_BYTES,
        freeMemoryBytes: DGX_SPARK_MEM_AVAILABLE_BYTES,
        memorySource: 'simulated',
        migMode: null,
        driverVersion: '580.95.05',
        cudaVersion: '13.0',
      },
    ],
  },
  'h100-8x': {
    inventory: {
      architecture: 'amd64',
      cpu: { model: 'Intel(R) Xeon(R) Platinum 8480+', cores: 224 },
      systemMemory: {
        totalBytes: 2_113_399_032 * KIB,
        availableBytes: 2_071_502_620 * KIB,
        source: 'simulated',
      },
      os: { name: 'Ubuntu', version: '22.04', kernel: '5.15.0-105-generic' },
    },
    gpus: (nodeName) =>
      Array.from({ length: 8 }, (_, index) => ({
        name: 'NVIDIA H100 80GB HBM3',
        uuid: simulatedGpuUuid(nodeName, 'h100-8x', index),
        index,
        computeCapability: '9.0',
        memoryModel: 'discrete' as const,
        totalMemoryBytes: H100_TOTAL_BYTES,
        freeMemoryBytes: H100_FREE_BYTES,
        memorySource: 'simulated' as const,
        migMode: 'disabled' as const,
        driverVersion: '550.54.15',
        cudaVersion: '12.4',
      })),
  },
};

export function simulatedInventory(
  profile: SimulatedProfile,
  nodeName: string,
  options: { agentVersion: string; now: () => Date },
): InventoryReport {
  const shape = PROFILES[profile];
  const inventory = NodeInventorySchema.parse({
    ...shape.inventory,
    gpus: shape.gpus(nodeName),
    agentVersion: options.agentVersion,
    agentProtocol: AGENT_PROTOCOL_VERSION,
    collectedAt: options.now().toISOString(),
  });
  return { inventory, problems: [] };
}
