import type {
  Artifact as ArtifactRecord,
  CompatibleHardware,
  EvaluationSummary,
  NodeLabels,
  Taint as TaintRecord,
} from '@lunanexa/contracts';
import {
  agentCompatibility,
  allowedEvents,
  deriveNodeReadiness,
  modelVersionLifecycle,
} from '@lunanexa/domain';
import type {
  AssignmentRow,
  BootstrapTokenRow,
  DeploymentRow,
  ModelVersionRow,
  NodeRow,
} from '@lunanexa/persistence';
import type {
  Assignment,
  BootstrapToken,
  Deployment,
  FleetNode,
  Label,
  ModelVersion,
  Taint,
} from './fleet.types';

export function labelsOf(labels: NodeLabels): Label[] {
  return Object.entries(labels)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, value]) => ({ key, value }));
}

export function taintsOf(taints: readonly TaintRecord[]): Taint[] {
  return taints.map((taint) => ({ key: taint.key, value: taint.value, effect: taint.effect }));
}

export function assignmentView(row: AssignmentRow, nodeName: string): Assignment {
  return {
    id: row.id,
    deploymentId: row.deploymentId,
    nodeId: row.nodeId,
    nodeName,
    generation: row.generation,
    intent: row.intent,
    leaseExpiresAt: row.leaseExpiresAt,
    ackedGeneration: row.ackedGeneration,
    observedState: row.observedState,
    observedGeneration: row.observedGeneration,
    endpointPort: row.endpointPort,
    inFlight: row.inFlight,
    message: row.observedMessage,
    observedAt: row.observedAt,
  };
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
    ],
    cordoned: node.cordoned,
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

export function modelVersionView(row: ModelVersionRow): ModelVersion {
  const runtime = row.runtime as { kind?: string };
  const artifact = row.artifact as ArtifactRecord;
  const evaluation = row.evaluation as EvaluationSummary | null;
  return {
    id: row.id,
    ref: row.ref,
    model: row.model,
    version: row.version,
    runtimeKind: runtime.kind ?? 'unknown',
    artifactDigest: artifact.digest,
    state: row.state,
    stateReason: row.stateReason,
    allowedEvents: allowedEvents(modelVersionLifecycle, row.state),
    artifact: {
      ...artifact,
      provenance: { ...artifact.provenance, signature: artifact.provenance.signature ?? null },
    },
    requirements: row.requirements as CompatibleHardware,
    verification: row.verification
      ? {
          ...row.verification,
          code: row.verification.code ?? null,
          message: row.verification.message ?? null,
        }
      : null,
    evaluation: evaluation
      ? {
          ...evaluation,
          scores: Object.entries(evaluation.scores).map(([name, value]) => ({ name, value })),
        }
      : null,
    contextLength: row.contextLength,
    parameterCount: row.parameterCount,
    runtimeEnv: Object.entries(row.runtimeEnv).map(([name, value]) => ({ name, value })),
    licenseId: row.licenseId,
    runtimeId: row.runtimeId,
    createdBy: row.createdBy,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export function deploymentView(
  row: DeploymentRow,
  assignments: readonly AssignmentRow[],
  nodeNames: ReadonlyMap<string, string>,
  temporalUiUrl: string,
): Deployment {
  return {
    id: row.id,
    name: row.name,
    modelRef: row.modelRef,
    purpose: row.purpose,
    placementStrategy: row.placementStrategy,
    state: row.state,
    stateReason: row.stateReason,
    generation: row.generation,
    observedGeneration: row.observedGeneration,
    desiredReplicas: row.desiredReplicas,
    readyReplicas: assignments.filter(
      (a) => a.intent === 'Run' && a.observedState === 'Ready' && a.observedGeneration === a.generation,
    ).length,
    assignments: assignments.map((a) => assignmentView(a, nodeNames.get(a.nodeId) ?? a.nodeId)),
    placement:
      row.placement === null
        ? null
        : {
            decidedAt: row.placement.decidedAt,
            chosen: row.placement.chosen.map((choice) => ({ ...choice })),
            rejected: row.placement.rejected.map(({ node, reasons }) => ({ node, reasons: [...reasons] })),
            unplaced: row.placement.unplaced,
          },
    workflowId: row.workflowId,
    temporalUiUrl,
    createdBy: row.createdBy,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
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
