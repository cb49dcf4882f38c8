import {
  GpuInventorySchema,
  type Architecture,
  type GpuInventory,
  type GpuMemoryModel,
} from '@lunanexa/contracts';
import type { Meminfo } from './meminfo';
import type { NvidiaSmiGpuRow, NvidiaSmiSummary } from './nvidia-smi';

const MIB = 1024 * 1024;

/**
 * GPUs known by name to have no memory of their own. Matching by name comes
 * first because it holds even if a future driver starts reporting an NVML
 * figure: that figure would still not be the capacity to schedule against.
 */
const UNIFIED_MEMORY_GPU_NAME = /\bGB10\b/;

/**
 * A GB10 is unified. So is any GPU on an arm64 host for which NVML has no
 * memory figure at all: that combination is how Grace-class superchips present,
 * and reading the missing figure as "no memory" is the failure HARDWARE.md
 * warns about. On amd64 a missing figure stays a missing figure (a broken
 * discrete GPU), which the schema then refuses to report as NVML-sourced.
 */
export function memoryModelOf(row: NvidiaSmiGpuRow, architecture: Architecture): GpuMemoryModel {
  if (UNIFIED_MEMORY_GPU_NAME.test(row.name)) return 'unified';
  if (architecture === 'arm64' && row.memoryTotalMiB === null) return 'unified';
  return 'discrete';
}

export interface NvidiaGpuFacts {
  readonly architecture: Architecture;
  readonly rows: readonly NvidiaSmiGpuRow[];
  readonly summary: NvidiaSmiSummary;
  readonly meminfo: Meminfo;
}

export interface GpuConversion {
  readonly gpus: GpuInventory[];
  /** One line per GPU that could not be reported, saying which and why. */
  readonly problems: string[];
}

/**
 * Turns nvidia-smi rows into contract records. A GPU the contract cannot
 * describe truthfully (no compute capability, a discrete GPU without a memory
 * total) is left out and named in `problems`, so the node still reports its
 * other GPUs and the operator sees exactly what is wrong with the missing one.
 */
export function gpusFromNvidiaSmi(facts: NvidiaGpuFacts): GpuConversion {
  const gpus: GpuInventory[] = [];
  const problems: string[] = [];
  for (const row of facts.rows) {
    const memoryModel = memoryModelOf(row, facts.architecture);
    const memory =
      memoryModel === 'unified'
        ? {
            totalMemoryBytes: facts.meminfo.memTotalBytes,
            freeMemoryBytes: facts.meminfo.memAvailableBytes,
            memorySource: 'proc-meminfo' as const,
          }
        : {
            totalMemoryBytes: row.memoryTotalMiB === null ? null : row.memoryTotalMiB * MIB,
            freeMemoryBytes: row.memoryFreeMiB === null ? null : row.memoryFreeMiB * MIB,
            memorySource: 'nvml' as const,
          };
    const candidate = {
      name: row.name,
      uuid: row.uuid,
      index: row.index,
      computeCapability: row.computeCapability,
      memoryModel,
      ...memory,
      migMode: row.migMode,
      driverVersion: row.driverVersion ?? facts.summary.driverVersion,
      cudaVersion: facts.summary.cudaVersion,
    };
    const parsed = GpuInventorySchema.safeParse(candidate);
    if (parsed.success) {
      gpus.push(parsed.data);
    } else {
      const reasons = parsed.error.issues.map(
        (issue) => `${issue.path.map(String).join('.')}: ${issue.message}`,
      );
      problems.push(`GPU ${row.index} (${row.name}, ${row.uuid}) not reported: ${reasons.join('; ')}`);
    }
  }
  return { gpus, problems };
}
