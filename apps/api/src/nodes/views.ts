import type {
  GpuTelemetry as GpuTelemetryRecord,
  NodeLabels,
  Taint as TaintRecord,
} from '@lunanexa/contracts';
import { agentCompatibility, deriveNodeReadiness, nodeActions } from '@lunanexa/domain';
import type { AssignmentRow, BootstrapTokenRow, GpuSample, NodeRow } from '@lunanexa/persistence';
import { assignmentView } from '../deployments';
import type { BootstrapToken, FleetNode, GpuSeries, GpuTelemetry, Label, Taint } from './nodes.types';

export function labelsOf(labels: NodeLabels): Label[] {
  return Object.entries(labels)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, value]) => ({ key, value }));
}

export function taintsOf(taints: readonly TaintRecord[]): Taint[] {
  return taints.map((taint) => ({ key: taint.key, value: taint.value, effect: taint.effect }));
}

export function nodeView(
  node: NodeRow,
  assignments: readonly AssignmentRow[],
  temporalUiUrl: string,
  now: Date = new Date(),
): FleetNode {
  const readiness = deriveNodeReadiness({
    leaseRenewedAt: node.leaseRenewedAt,
    leaseExpiresAt: node.leaseExpiresAt,
    inventory: node.inventory,
    now,
  });
  return {
    id: node.id,
    name: node.name,
    lifecycle: node.lifecycle,
    readiness: readiness.readiness,
    conditions: [
      {
        type: readiness.condition.type,
        status: readiness.condition.status,
        reason: readiness.condition.reason,
        message: readiness.condition.message ?? null,
        lastTransitionAt: new Date(readiness.condition.lastTransitionAt),
      },
      ...node.conditions.map((condition) => ({
        type: condition.type,
        status: condition.status,
        reason: condition.reason,
        message: condition.message ?? null,
        lastTransitionAt: new Date(condition.lastTransitionAt),
      })),
    ],
    cordoned: node.cordoned,
    actions: nodeActions(node),
    labels: labelsOf(node.labels),
    taints: taintsOf(node.taints),
    address: node.address,
    sshPort: node.sshPort,
    hostKeyFingerprint: node.hostKeyFingerprint,
    keyId: node.keyId,
    nextKeyId: node.nextKeyId,
    credentialSerial: node.credentialSerial,
    credentialExpiresAt: node.credentialExpiresAt,
    leaseRenewedAt: node.leaseRenewedAt,
    leaseExpiresAt: node.leaseExpiresAt,
    heartbeatAgeSeconds: readiness.heartbeatAgeSeconds,
    architecture: node.inventory.architecture,
    cpuCores: node.inventory.cpu.cores,
    systemMemoryBytes: node.inventory.systemMemory.totalBytes,
    agentVersion: node.inventory.agentVersion,
    ...agentView(node.inventory),
    gpus: node.inventory.gpus.map((gpu) => ({
      index: gpu.index,
      name: gpu.name,
      uuid: gpu.uuid,
      memoryModel: gpu.memoryModel,
      memorySource: gpu.memorySource,
      totalMemoryBytes: gpu.totalMemoryBytes,
      freeMemoryBytes: gpu.freeMemoryBytes,
      computeCapability: gpu.computeCapability,
    })),
    gpuTelemetry: node.gpuTelemetry.map(gpuTelemetryView),
    assignments: assignments.map((row) => assignmentView(row, node.name)),
    enrollWorkflowId: node.enrollWorkflowId,
    temporalUiUrl,
    enrolledAt: node.enrolledAt,
    updatedAt: node.updatedAt,
  };
}

export function bootstrapTokenView(row: BootstrapTokenRow): BootstrapToken {
  return {
    id: row.id,
    prefix: row.prefix,
    nodeName: row.nodeName,
    labels: labelsOf(row.labels),
    autoApprove: row.autoApprove,
    createdBy: row.createdBy,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
    usedAt: row.usedAt,
    usedByNodeId: row.usedByNodeId,
    revokedAt: row.revokedAt,
  };
}

function agentView(inventory: NodeRow['inventory']): {
  agentProtocol: number;
  agentOutdated: boolean;
  agentOutdatedReason: string | null;
} {
  const compatibility = agentCompatibility(inventory);
  return {
    agentProtocol: compatibility.protocol,
    agentOutdated: compatibility.outdated,
    agentOutdatedReason: compatibility.reason,
  };
}

/** Absent (an older agent) and null read the same: not reported. Pids stay on the node (never a label or a field here). */
export function gpuTelemetryView(gpu: GpuTelemetryRecord): GpuTelemetry {
  return {
    uuid: gpu.uuid,
    index: gpu.index ?? null,
    sampledAt: gpu.sampledAt === undefined ? null : new Date(gpu.sampledAt),
    utilizationPercent: gpu.utilizationPercent,
    memoryUsedBytes: gpu.memoryUsedBytes ?? null,
    memoryTotalBytes: gpu.memoryTotalBytes ?? null,
    memorySource: gpu.memorySource ?? null,
    temperatureCelsius: gpu.temperatureCelsius,
    powerWatts: gpu.powerWatts,
    powerLimitWatts: gpu.powerLimitWatts ?? null,
    throttleReasons: gpu.throttleReasons ?? null,
    eccUncorrectedErrors: gpu.eccUncorrectedErrors ?? null,
    lastXid: gpu.lastXid ?? null,
    lastError: gpu.lastError ?? null,
    lost: gpu.lost ?? false,
    processMemoryBytes: gpu.processes.reduce((sum, process) => sum + process.usedMemoryBytes, 0),
    processCount: gpu.processes.length,
  };
}

/** Samples (oldest first) regrouped per GPU, by index then uuid; a GPU missing from a sample simply has no point there. */
export function gpuSeriesView(samples: readonly GpuSample[]): GpuSeries[] {
  const byUuid = new Map<string, GpuSeries>();
  for (const sample of samples) {
    for (const gpu of sample.gpus) {
      let series = byUuid.get(gpu.uuid);
      if (!series) {
        series = { uuid: gpu.uuid, index: gpu.index, points: [] };
        byUuid.set(gpu.uuid, series);
      }
      if (gpu.index !== null) series.index = gpu.index;
      series.points.push({
        at: sample.sampledAt,
        utilizationPercent: gpu.utilizationPercent,
        memoryUsedBytes: gpu.memoryUsedBytes,
        memoryTotalBytes: gpu.memoryTotalBytes,
        temperatureCelsius: gpu.temperatureCelsius,
        powerWatts: gpu.powerWatts,
      });
    }
  }
  return [...byUuid.values()].sort(
    (a, b) =>
      (a.index ?? Number.MAX_SAFE_INTEGER) - (b.index ?? Number.MAX_SAFE_INTEGER) ||
      a.uuid.localeCompare(b.uuid),
  );
}
