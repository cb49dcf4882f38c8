import type { NodeInventory } from '@lunanexa/contracts';
import { createServiceMetrics, type ServiceMetrics } from '@lunanexa/observability';
import { Gauge } from 'prom-client';
import type { InventoryReport } from './inventory/collect';

export interface AgentMetrics extends ServiceMetrics {
  /** Replaces every inventory series with the figures of `report`. */
  recordInventory(report: InventoryReport): void;
}

/**
 * Inventory gauges. Labels are bounded by the GPUs in one node (index, not
 * UUID, so a replaced GPU does not mint new series). A GPU whose memory figure
 * is unknown gets no memory series at all: exporting 0 would chart a GB10 as
 * empty, which is the misreading LunaNexa exists to avoid.
 */
export function createAgentMetrics(service: string, info: { version: string; commit: string }): AgentMetrics {
  const base = createServiceMetrics(service, info);
  const registers = [base.registry];
  const gpus = new Gauge({
    name: 'lunanexa_agent_gpus',
    help: 'GPUs in the last inventory, by memory model (unified or discrete).',
    labelNames: ['memory_model'] as const,
    registers,
  });
  const gpuLabels = ['gpu', 'memory_model', 'memory_source'] as const;
  const gpuTotal = new Gauge({
    name: 'lunanexa_agent_gpu_memory_total_bytes',
    help: 'Schedulable memory of each GPU. For unified-memory GPUs this is the node MemTotal (memory_source="proc-meminfo"), shared with the CPU; do not add it to system memory.',
    labelNames: gpuLabels,
    registers,
  });
  const gpuFree = new Gauge({
    name: 'lunanexa_agent_gpu_memory_free_bytes',
    help: 'Free memory of each GPU. For unified-memory GPUs this is the node MemAvailable.',
    labelNames: gpuLabels,
    registers,
  });
  const systemTotal = new Gauge({
    name: 'lunanexa_agent_system_memory_total_bytes',
    help: 'Node MemTotal.',
    registers,
  });
  const systemAvailable = new Gauge({
    name: 'lunanexa_agent_system_memory_available_bytes',
    help: 'Node MemAvailable (page cache counts as available).',
    registers,
  });
  const problems = new Gauge({
    name: 'lunanexa_agent_inventory_problems',
    help: 'Problems in the last inventory collection (GPUs not reported, nvidia-smi failures). Non-zero needs an operator.',
    registers,
  });
  const collectedAt = new Gauge({
    name: 'lunanexa_agent_inventory_collected_timestamp_seconds',
    help: 'When the last inventory was collected.',
    registers,
  });

  function recordInventory(report: InventoryReport): void {
    const inventory: NodeInventory = report.inventory;
    gpus.reset();
    gpuTotal.reset();
    gpuFree.reset();
    // Both models always have a series, so "0 discrete GPUs" is visible rather than absent.
    gpus.set(
      { memory_model: 'unified' },
      inventory.gpus.filter((gpu) => gpu.memoryModel === 'unified').length,
    );
    gpus.set(
      { memory_model: 'discrete' },
      inventory.gpus.filter((gpu) => gpu.memoryModel === 'discrete').length,
    );
    for (const gpu of inventory.gpus) {
      const labels = {
        gpu: String(gpu.index),
        memory_model: gpu.memoryModel,
        memory_source: gpu.memorySource,
      };
      if (gpu.totalMemoryBytes !== null) gpuTotal.set(labels, gpu.totalMemoryBytes);
      if (gpu.freeMemoryBytes !== null) gpuFree.set(labels, gpu.freeMemoryBytes);
    }
    systemTotal.set(inventory.systemMemory.totalBytes);
    systemAvailable.set(inventory.systemMemory.availableBytes);
    problems.set(report.problems.length);
    collectedAt.set(Date.parse(inventory.collectedAt) / 1000);
  }

  return { ...base, recordInventory };
}
