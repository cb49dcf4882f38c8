import { DEFAULT_ROUTING_POLICY } from '@lunanexa/contracts';
import type { AssignmentRow, DeploymentRow } from '@lunanexa/persistence';
import type { Assignment, Deployment } from './deployments.types';

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
    routingPolicy: row.routingPolicy ?? DEFAULT_ROUTING_POLICY,
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
