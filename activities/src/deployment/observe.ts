import { foldDeploymentObservation, leaseHolds } from '@lunanexa/domain';
import {
  findAssignment,
  findNode,
  listAssignments,
  writeDeploymentState,
  type NodeRow,
} from '@lunanexa/persistence';
import { currentWorkflowId, receiptedTransaction, receiptOnce, typed } from '../fleet-support';
import { lockedDeployment } from './deployment-row';
import type { DeploymentActivityPorts, DeploymentObservation, DeploymentStepInput } from './ports';

/** States whose arrival is worth a receipt: the ones an operator asks "when did it get there?". */
const RECEIPTED_STATES: readonly string[] = ['Ready', 'Stopped', 'Failed', 'Degraded'];

export function observeActivities({ db, clock }: DeploymentActivityPorts) {
  return {
    /** Folds the agents' reports into the deployment's state; a receipt on reaching Ready or Stopped. */
    async observeDeployment(input: DeploymentStepInput): Promise<DeploymentObservation> {
      return typed(() =>
        receiptedTransaction(db, async (manager) => {
          const workflowId = currentWorkflowId();
          const deployment = await lockedDeployment(manager, input.deploymentId);
          const rows = await listAssignments(manager, { deploymentId: deployment.id });
          const now = clock.now();
          const nodes = new Map<string, NodeRow>();
          for (const row of rows) {
            const node = await findNode(manager, row.nodeId);
            if (node) nodes.set(row.nodeId, node);
          }
          const fold = foldDeploymentObservation({
            state: deployment.state,
            stateReason: deployment.stateReason,
            desiredReplicas: deployment.desiredReplicas,
            replicas: rows.map((row) => ({
              ...row,
              nodeReachable: leaseHolds(nodes.get(row.nodeId)?.leaseExpiresAt, now),
            })),
          });
          const { state, reason } = fold;
          if (state !== deployment.state || reason !== deployment.stateReason || fold.generationObserved) {
            await writeDeploymentState(manager, {
              deploymentId: deployment.id,
              state,
              reason,
              at: now,
              ...(fold.generationObserved ? { observedGeneration: deployment.generation } : {}),
            });
          }
          const running = fold.running.map((index) => rows[index]);
          if (state !== deployment.state && RECEIPTED_STATES.includes(state)) {
            await receiptOnce(manager, workflowId, {
              actor: input.actor,
              action: `deployment.${state.toLowerCase()}`,
              step: `${state}-g${deployment.generation}`,
              evidence: {
                deploymentId: deployment.id,
                name: deployment.name,
                generation: deployment.generation,
                readyReplicas: fold.ready.length,
                nodes: running.map((row) => nodes.get(row.nodeId)?.name ?? row.nodeId),
                reason,
              },
              correlationId: input.correlationId,
              occurredAt: now,
            });
          }
          return {
            state,
            generation: deployment.generation,
            readyReplicas: fold.ready.length,
            desiredReplicas: deployment.desiredReplicas,
            placedReplicas: running.length,
            stopped: fold.stopped,
          };
        }),
      );
    },

    /** Where a replica stands: its intent and generation, and what its agent last reported. */
    async replicaObservation(input: { readonly assignmentId: string }): Promise<{
      intent: string;
      generation: number;
      observedGeneration: number | null;
      observedState: string | null;
    } | null> {
      return typed(async () => {
        const row = await findAssignment(db, input.assignmentId);
        if (!row) return null;
        return {
          intent: row.intent,
          generation: row.generation,
          observedGeneration: row.observedGeneration,
          observedState: row.observedState,
        };
      });
    },
  };
}
