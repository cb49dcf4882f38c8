import {
  compareComputeCapability,
  type CompatibleHardware,
  type GpuInventory,
  type NodeInventory,
} from '@lunanexa/contracts';

/**
 * Whether one replica of a model version, on its runtime, could run on a node
 * at all — a static check of the declarations against the node's inventory,
 * not of free capacity (placement does that). Both declarations must hold:
 * the version's requirements and the runtime's supported hardware.
 *
 * Memory follows the GPU's memory model (docs/ARCHITECTURE.md, HARDWARE.md):
 * - unified (GB10): the GPU has no memory of its own and NVML reports none;
 *   a replica gets the node's system memory minus a headroom for the OS and
 *   the page cache, which compete with the model;
 * - discrete (H100): each GPU's own memory, the replica's need split evenly
 *   over the GPUs it occupies (tensor parallelism shards the weights);
 * - no GPU (gpusPerReplica 0, the fake runtime): system memory minus headroom.
 *
 * The inventory has no GPU family field; the compute capability range is
 * what separates families (sm_100 datacenter Blackwell from sm_121 GB10).
 */

/**
 * The share of system memory a unified-memory node keeps for the OS and page
 * cache. Inference engines on DGX Spark run at --gpu-memory-utilization
 * 0.85–0.87; 15 % is the same policy expressed as headroom.
 */
export const UNIFIED_MEMORY_HEADROOM_FRACTION = 0.15;

export interface HardwareFit {
  readonly fits: boolean;
  /** Every reason the node does not fit, in check order; empty when it fits. */
  readonly reasons: string[];
}

/** The stricter of two declarations: what a replica needs on a node for both to hold. */
function combined(requirements: CompatibleHardware, runtime: CompatibleHardware) {
  const maxes = [requirements.maxComputeCapability, runtime.maxComputeCapability].filter(
    (value): value is string => value !== null,
  );
  const cudas = [requirements.minCudaVersion, runtime.minCudaVersion].filter(
    (value): value is string => value !== null,
  );
  const memories = [requirements.minMemoryBytesPerReplica, runtime.minMemoryBytesPerReplica].filter(
    (value): value is number => value !== null,
  );
  const highest = (values: string[]) =>
    values.reduce<string | null>(
      (best, value) => (best === null || compareComputeCapability(value, best) > 0 ? value : best),
      null,
    );
  const lowest = (values: string[]) =>
    values.reduce<string | null>(
      (best, value) => (best === null || compareComputeCapability(value, best) < 0 ? value : best),
      null,
    );
  return {
    architectures: requirements.architectures.filter((a) => runtime.architectures.includes(a)),
    memoryModels: requirements.memoryModels.filter((m) => runtime.memoryModels.includes(m)),
    minComputeCapability: highest([requirements.minComputeCapability, runtime.minComputeCapability]) ?? '0.0',
    maxComputeCapability: lowest(maxes),
    // Versions are "major.minor" like compute capabilities, so the same numeric order applies.
    minCudaVersion: highest(cudas),
    gpusPerReplica: Math.max(requirements.gpusPerReplica, runtime.gpusPerReplica),
    minMemoryBytesPerReplica: memories.length > 0 ? Math.max(...memories) : null,
  };
}

export function formatGiB(bytes: number): string {
  return `${(bytes / 1024 ** 3).toFixed(1)} GiB`;
}

/** The memory one replica of a version on its runtime claims on a node (the stricter declaration); 0 when neither says. */
export function replicaMemoryDemand(
  requirements: CompatibleHardware,
  runtimeSupported: CompatibleHardware,
): number {
  return combined(requirements, runtimeSupported).minMemoryBytesPerReplica ?? 0;
}

/**
 * What all replicas on a node may claim together: on unified memory (a DGX
 * Spark's GB10) or without GPUs, system memory after the headroom; on
 * discrete GPUs, the GPUs' memory (a GPU reporting none adds nothing).
 */
export function nodeMemoryCapacity(inventory: NodeInventory): number {
  if (inventory.gpus.length === 0 || inventory.gpus.some((gpu) => gpu.memoryModel === 'unified')) {
    return unifiedMemoryCapacity(inventory);
  }
  return inventory.gpus.reduce((sum, gpu) => sum + (gpu.totalMemoryBytes ?? 0), 0);
}

/** What one replica may use of a unified-memory (or GPU-less) node: system memory minus the headroom. */
export function unifiedMemoryCapacity(inventory: NodeInventory): number {
  return Math.floor(inventory.systemMemory.totalBytes * (1 - UNIFIED_MEMORY_HEADROOM_FRACTION));
}

function gpuLabel(gpu: GpuInventory): string {
  return `GPU ${gpu.index} (${gpu.name})`;
}

/** Why this GPU cannot hold its share of the replica; null when it can. */
function gpuProblem(
  gpu: GpuInventory,
  need: ReturnType<typeof combined>,
  inventory: NodeInventory,
): string | null {
  if (!need.memoryModels.includes(gpu.memoryModel)) {
    return `${gpuLabel(gpu)} has ${gpu.memoryModel} memory, needs ${need.memoryModels.join(' or ') || 'none (the requirements and the runtime share no memory model)'}`;
  }
  if (compareComputeCapability(gpu.computeCapability, need.minComputeCapability) < 0) {
    return `${gpuLabel(gpu)} has compute capability ${gpu.computeCapability}, needs at least ${need.minComputeCapability}`;
  }
  if (
    need.maxComputeCapability !== null &&
    compareComputeCapability(gpu.computeCapability, need.maxComputeCapability) > 0
  ) {
    return `${gpuLabel(gpu)} has compute capability ${gpu.computeCapability}, above the supported maximum ${need.maxComputeCapability}`;
  }
  if (need.minCudaVersion !== null && compareComputeCapability(gpu.cudaVersion, need.minCudaVersion) < 0) {
    return `${gpuLabel(gpu)} driver supports CUDA ${gpu.cudaVersion}, needs at least ${need.minCudaVersion}`;
  }
  if (gpu.migMode === 'enabled') {
    return `${gpuLabel(gpu)} is split by MIG; a replica needs whole GPUs`;
  }
  if (need.minMemoryBytesPerReplica === null) return null;
  if (gpu.memoryModel === 'unified') {
    const capacity = unifiedMemoryCapacity(inventory);
    if (capacity < need.minMemoryBytesPerReplica) {
      return `${gpuLabel(gpu)} shares ${formatGiB(inventory.systemMemory.totalBytes)} unified memory, ${formatGiB(capacity)} after ${UNIFIED_MEMORY_HEADROOM_FRACTION * 100}% headroom; the replica needs ${formatGiB(need.minMemoryBytesPerReplica)}`;
    }
    return null;
  }
  const share = Math.ceil(need.minMemoryBytesPerReplica / need.gpusPerReplica);
  if (gpu.totalMemoryBytes === null) {
    return `${gpuLabel(gpu)} reports no memory total; the replica needs ${formatGiB(share)} on it`;
  }
  if (gpu.totalMemoryBytes < share) {
    return `${gpuLabel(gpu)} has ${formatGiB(gpu.totalMemoryBytes)}, the replica needs ${formatGiB(share)} per GPU`;
  }
  return null;
}

/**
 * Whether one replica can run on the node. Every failed check is named, so
 * an operator reading a refusal knows which declaration to change.
 */
export function hardwareFit(
  requirements: CompatibleHardware,
  runtimeSupported: CompatibleHardware,
  node: NodeInventory,
): HardwareFit {
  const need = combined(requirements, runtimeSupported);
  const reasons: string[] = [];
  if (!need.architectures.includes(node.architecture)) {
    reasons.push(
      need.architectures.length === 0
        ? 'the requirements and the runtime share no CPU architecture'
        : `architecture ${node.architecture}, needs ${need.architectures.join(' or ')}`,
    );
  }
  if (need.gpusPerReplica === 0) {
    if (need.minMemoryBytesPerReplica !== null) {
      const capacity = unifiedMemoryCapacity(node);
      if (capacity < need.minMemoryBytesPerReplica) {
        reasons.push(
          `system memory ${formatGiB(node.systemMemory.totalBytes)} (${formatGiB(capacity)} after ${UNIFIED_MEMORY_HEADROOM_FRACTION * 100}% headroom), the replica needs ${formatGiB(need.minMemoryBytesPerReplica)}`,
        );
      }
    }
    return { fits: reasons.length === 0, reasons };
  }
  const problems = node.gpus.map((gpu) => gpuProblem(gpu, need, node));
  const usable = problems.filter((problem) => problem === null).length;
  if (usable < need.gpusPerReplica) {
    if (node.gpus.length === 0) {
      reasons.push(`no GPU reported, the replica needs ${need.gpusPerReplica}`);
    } else {
      reasons.push(
        `${usable} of ${node.gpus.length} GPUs usable, the replica needs ${need.gpusPerReplica}`,
        ...problems.filter((problem): problem is string => problem !== null),
      );
    }
  }
  return { fits: reasons.length === 0, reasons };
}

export interface FleetNodeHardware {
  readonly name: string;
  readonly inventory: NodeInventory;
}

export interface FleetHardwareFit extends HardwareFit {
  /** Names of the nodes one replica could run on. */
  readonly fittingNodes: string[];
  /** Every other node with its reasons. */
  readonly rejectedNodes: { readonly node: string; readonly reasons: string[] }[];
}

/**
 * The fleet view: fits when at least one node fits. `reasons` is one line per
 * rejected node (`node: reason; reason`) so a HARDWARE_INCOMPATIBLE refusal
 * reads like a placement failure that names every filtered node.
 */
export function fleetHardwareFit(
  requirements: CompatibleHardware,
  runtimeSupported: CompatibleHardware,
  nodes: readonly FleetNodeHardware[],
): FleetHardwareFit {
  const fittingNodes: string[] = [];
  const rejectedNodes: { node: string; reasons: string[] }[] = [];
  for (const node of nodes) {
    const fit = hardwareFit(requirements, runtimeSupported, node.inventory);
    if (fit.fits) fittingNodes.push(node.name);
    else rejectedNodes.push({ node: node.name, reasons: fit.reasons });
  }
  const reasons =
    nodes.length === 0
      ? ['no active node in the fleet']
      : rejectedNodes.map(({ node, reasons: why }) => `${node}: ${why.join('; ')}`);
  return {
    fits: fittingNodes.length > 0,
    reasons: fittingNodes.length > 0 ? [] : reasons,
    fittingNodes,
    rejectedNodes,
  };
}
