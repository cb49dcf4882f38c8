import {
  findNode,
  listAssignments,
  advanceDeploymentGeneration,
  reassignReplica,
} from '@lunanexa/persistence';
import { currentWorkflowId, receiptedTransaction, receiptOnce, typed, type Receipt } from '../fleet-support';
import { buildAssignment, leaseUntil, unrevokedSigningKeys } from './assignment-spec';
import { lockedDeployment, modelVersionOf, moveDeployment } from './deployment-row';
import type { DeploymentActivityPorts, DeploymentStepInput } from './ports';

export function stopActivities({ db, clock }: DeploymentActivityPorts) {
  return {
    /**
     * A new generation in which the replicas on `nodeIds` (all, when null)
     * stop. The deployment goes Stopping when everything stops.
     */
    async stopReplicas(
      input: DeploymentStepInput & {
        readonly nodeIds: readonly string[] | null;
        readonly leaseSeconds: number;
        /** Names the receipt's step when one run stops the same node more than once (healing restarts). */
        readonly step?: string;
      },
    ): Promise<{ generation: number; stopped: number; receipt: Receipt }> {
      return typed(() =>
        receiptedTransaction(db, async (manager) => {
          const workflowId = currentWorkflowId();
          const deployment = await lockedDeployment(manager, input.deploymentId);
          const version = await modelVersionOf(manager, deployment);
          const now = clock.now();
          const rows = await listAssignments(manager, { deploymentId: deployment.id });
          const targets = rows.filter(
            (row) => row.intent === 'Run' && (input.nodeIds === null || input.nodeIds.includes(row.nodeId)),
          );
          const step =
            input.step ??
            (input.nodeIds === null ? 'stop-all' : `evacuate-${[...input.nodeIds].sort().join(',')}`);
          let generation = deployment.generation;
          if (targets.length > 0) {
            generation = deployment.generation + 1;
            await advanceDeploymentGeneration(manager, deployment.id, generation, now);
            for (const row of targets) {
              const node = await findNode(manager, row.nodeId);
              if (!node) continue;
              const lease = leaseUntil(now, input.leaseSeconds);
              const keys = await unrevokedSigningKeys(manager);
              const spec = buildAssignment(
                row.id,
                deployment,
                version,
                node,
                'Stop',
                generation,
                lease,
                keys,
              );
              await reassignReplica(manager, { spec, leaseExpiresAt: lease, at: now });
            }
          }
          if (input.nodeIds === null && deployment.state !== 'Stopped') {
            await moveDeployment(manager, deployment, 'stop', null, now);
          }
          const receipt = await receiptOnce(manager, workflowId, {
            actor: input.actor,
            action: input.nodeIds === null ? 'deployment.stop' : 'deployment.evacuate',
            step,
            evidence: {
              deploymentId: deployment.id,
              name: deployment.name,
              generation,
              assignments: targets.map((row) => row.id),
            },
            correlationId: input.correlationId,
            occurredAt: now,
          });
          return { generation, stopped: targets.length, receipt };
        }),
      );
    },

    /** The receipt that closes a deployment's workflow. */
    async finishDeployment(
      input: DeploymentStepInput & { readonly state: 'Stopped' | 'Failed' },
    ): Promise<Receipt> {
      return typed(() =>
        receiptedTransaction(db, async (manager) => {
          const workflowId = currentWorkflowId();
          const deployment = await lockedDeployment(manager, input.deploymentId);
          const now = clock.now();
          if (deployment.state !== input.state) {
            await moveDeployment(
              manager,
              deployment,
              input.state === 'Stopped' ? 'stopped' : 'fail',
              null,
              now,
            );
          }
          return receiptOnce(manager, workflowId, {
            actor: input.actor,
            action: 'deployment.finish',
            step: 'finish',
            evidence: { deploymentId: deployment.id, name: deployment.name, state: input.state },
            correlationId: input.correlationId,
            occurredAt: now,
          });
        }),
      );
    },
  };
}
