import { REPLICA_STATES, type NodeInventory, type ReplicaState } from '@lunanexa/contracts';
import { createServiceMetrics, type ServiceMetrics } from '@lunanexa/observability';
import { MESSAGE_TYPES } from '@lunanexa/agent-protocol';
import { Counter, Gauge } from 'prom-client';
import type { InventoryReport } from './inventory/collect';
import { SSH_REFUSED_REQUESTS } from './ssh/refusals';

export interface AgentMetrics extends ServiceMetrics {
  /** Replaces every inventory series with the figures of `report`. */
  recordInventory(report: InventoryReport): void;
  /** `lunanexa_agent_ssh_refused_total{request}`: label values from SSH_REFUSED_REQUESTS only. */
  readonly sshRefused: Counter<'request'>;
  /** `lunanexa_agent_southbound_messages_total{type,outcome}`: type from MESSAGE_TYPES or `invalid`; outcome `ok` or an ErrorCode. */
  readonly southboundMessages: Counter<'type' | 'outcome'>;
  /** `lunanexa_agent_heartbeats_total{outcome}`: ok, refused, unreachable, untrusted-answer. */
  readonly heartbeats: Counter<'outcome'>;
  /** Where `lunanexa_agent_replicas{state}` reads the replica states from at each scrape (the reconciler). */
  setReplicaStates(source: () => readonly ReplicaState[]): void;
}

/** Every heartbeat outcome, exported from the start so a rate() over "none yet" is 0, not absent. */
const HEARTBEAT_OUTCOMES = ['ok', 'refused', 'unreachable', 'untrusted-answer'] as const;

/** The `type` label of a message whose type could not be read. */
export const INVALID_MESSAGE_TYPE_LABEL = 'invalid';

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

  const sshRefused = new Counter({
    name: 'lunanexa_agent_ssh_refused_total',
    help: 'SSH requests and authentications the agent refused (shell, exec, pty, env, x11, agent and port forwarding, other subsystems, non-controller auth). Anything above 0 deserves a look.',
    labelNames: ['request'] as const,
    registers,
  });
  // Every value exported from the start, so a rate() over "no refusals yet" is 0, not absent.
  for (const request of SSH_REFUSED_REQUESTS) sshRefused.inc({ request }, 0);
  const southboundMessages = new Counter({
    name: 'lunanexa_agent_southbound_messages_total',
    help: 'Southbound protocol messages received over SSH, by type and outcome (ok or the error code answered).',
    labelNames: ['type', 'outcome'] as const,
    registers,
  });
  for (const type of MESSAGE_TYPES) southboundMessages.inc({ type, outcome: 'ok' }, 0);
  const heartbeats = new Counter({
    name: 'lunanexa_agent_heartbeats_total',
    help: 'Heartbeats sent to the controller, by outcome (ok = acknowledged by a trusted controller key).',
    labelNames: ['outcome'] as const,
    registers,
  });
  for (const outcome of HEARTBEAT_OUTCOMES) heartbeats.inc({ outcome }, 0);
  let replicaStates: () => readonly ReplicaState[] = () => [];
  new Gauge({
    name: 'lunanexa_agent_replicas',
    help: 'Accepted assignments by the state of their runtime (Ready, Starting, Unhealthy, Failed, Stopping, Stopped).',
    labelNames: ['state'] as const,
    registers,
    collect() {
      const states = replicaStates();
      for (const state of REPLICA_STATES)
        this.set({ state }, states.filter((entry) => entry === state).length);
    },
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

  return {
    ...base,
    recordInventory,
    sshRefused,
    southboundMessages,
    heartbeats,
    setReplicaStates(source) {
      replicaStates = source;
    },
  };
}
