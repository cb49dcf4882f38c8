import { ErrorCode, LunaNexaError } from '@lunanexa/contracts';
import {
  advanceDeploymentGeneration,
  findAssignment,
  findNode,
  reassignReplica,
} from '@lunanexa/persistence';
import { currentWorkflowId, receiptedTransaction, receiptOnce, typed, type Receipt } from '../fleet-support';
import { buildAssignment, leaseUntil, unrevokedSigningKeys } from './assignment-spec';
import { lockedDeployment, modelVersionOf } from './deployment-row';
import type { DeploymentActivityPorts, DeploymentStepInput } from './ports';

export function restartActivities({ db, clock }: DeploymentActivityPorts) {
  return {
    /**
     * The second half of a healing restart: the replica stopped at one
     * generation runs again on the same node at the next (a fresh process;
     * the agent fences the stale one by generation). Idempotent: a replica
     * already meant to run is left as it is.
     */
    async runReplicaAgain(
      input: DeploymentStepInput & { readonly assignmentId: string; readonly leaseSeconds: number },
    ): Promise<{ generation: number; receipt: Receipt | null }> {
      return typed(() =>
        receiptedTransaction(db, async (manager) => {
          const workflowId = currentWorkflowId();
          const deployment = await lockedDeployment(manager, input.deploymentId);
          const row = await findAssignment(manager, input.assignmentId, { forUpdate: true });
          if (!row || row.deploymentId !== deployment.id)
            throw new LunaNexaError(
              ErrorCode.NOT_FOUND,
              `assignment ${input.assignmentId} is not in ${deployment.name}`,
            );
          if (row.intent === 'Run') return { generation: row.generation, receipt: null };
          const version = await modelVersionOf(manager, deployment);
          const node = await findNode(manager, row.nodeId);
          if (!node) throw new LunaNexaError(ErrorCode.NOT_FOUND, `node ${row.nodeId} is gone`);
          const now = clock.now();
          const generation = deployment.generation + 1;
          await advanceDeploymentGeneration(manager, deployment.id, generation, now);
          const lease = leaseUntil(now, input.leaseSeconds);
          const keys = await unrevokedSigningKeys(manager);
          const spec = buildAssignment(row.id, deployment, version, node, 'Run', generation, lease, keys);
          await reassignReplica(manager, { spec, leaseExpiresAt: lease, at: now });
          const receipt = await receiptOnce(manager, workflowId, {
            actor: input.actor,
            action: 'deployment.replica.restart',
            step: `restart-${row.id}-g${generation}`,
            evidence: {
              deploymentId: deployment.id,
              name: deployment.name,
              assignmentId: row.id,
              nodeId: node.id,
              generation,
            },
            correlationId: input.correlationId,
            occurredAt: now,
          });
          return { generation, receipt };
        }),
      );
    },
  };
}
