import {
  findNode,
  listAssignments,
  advanceDeploymentGeneration,
  reassignReplica,
} from '@lunanexa/persistence';
import { ErrorCode, LunaNexaError } from '@lunanexa/contracts';
import {
  currentWorkflowId,
  receiptedTransaction,
  receiptOnce,
  typed,
  type Receipt,
  type ReceiptRef,
} from '../fleet-support';
import { buildAssignment, leaseUntil, unrevokedSigningKeys } from './assignment-spec';
import { lockedDeployment, modelVersionOf, moveDeployment } from './deployment-row';
import type { DeploymentActivityPorts, DeploymentStepInput } from './ports';
import type { EntityManager } from 'typeorm';

/**
 * The replicas still meant to run on `nodeIds` (all, when null) go to Stop at one new generation of the
 * deployment, each with a signed spec the next push delivers. Nothing when none is left to stop (a retried
 * step), so a retry never moves the generation twice.
 */
async function stopRunningReplicas(
  manager: EntityManager,
  deploymentId: string,
  nodeIds: readonly string[] | null,
  leaseSeconds: number,
  now: Date,
) {
  const deployment = await lockedDeployment(manager, deploymentId);
  const version = await modelVersionOf(manager, deployment);
  const rows = await listAssignments(manager, { deploymentId: deployment.id });
  const targets = rows.filter(
    (row) => row.intent === 'Run' && (nodeIds === null || nodeIds.includes(row.nodeId)),
  );
  let generation = deployment.generation;
  if (targets.length > 0) {
    generation = deployment.generation + 1;
    await advanceDeploymentGeneration(manager, deployment.id, generation, now);
    const keys = await unrevokedSigningKeys(manager);
    for (const row of targets) {
      const node = await findNode(manager, row.nodeId);
      if (!node) continue;
      const lease = leaseUntil(now, leaseSeconds);
      const spec = buildAssignment(row.id, deployment, version, node, 'Stop', generation, lease, keys);
      await reassignReplica(manager, { spec, leaseExpiresAt: lease, at: now });
    }
  }
  return { deployment, generation, targets };
}

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
          const now = clock.now();
          const { deployment, generation, targets } = await stopRunningReplicas(
            manager,
            input.deploymentId,
            input.nodeIds,
            input.leaseSeconds,
            now,
          );
          const step =
            input.step ??
            (input.nodeIds === null ? 'stop-all' : `evacuate-${[...input.nodeIds].sort().join(',')}`);
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

    /**
     * The replicas on every node of an evacuation batch stop at one new generation, in one transaction, with
     * the `deployment.evacuate` receipt each evacuation would have had alone (its own actor, correlation id
     * and step `evacuate-<nodeId>`): ten nodes lost at once cost one step per deployment, not ten.
     */
    async stopEvacuatedReplicas(input: {
      readonly deploymentId: string;
      readonly leaseSeconds: number;
      readonly evacuations: readonly { nodeId: string; actor: string; correlationId: string }[];
    }): Promise<{ generation: number; stopped: number; receipt: Receipt }> {
      return typed(() =>
        receiptedTransaction(db, async (manager) => {
          const workflowId = currentWorkflowId();
          const now = clock.now();
          const nodeIds = input.evacuations.map((evacuation) => evacuation.nodeId);
          const { deployment, generation, targets } = await stopRunningReplicas(
            manager,
            input.deploymentId,
            nodeIds,
            input.leaseSeconds,
            now,
          );
          let last: ReceiptRef | undefined;
          for (const evacuation of input.evacuations) {
            last = await receiptOnce(manager, workflowId, {
              actor: evacuation.actor,
              action: 'deployment.evacuate',
              step: `evacuate-${evacuation.nodeId}`,
              evidence: {
                deploymentId: deployment.id,
                name: deployment.name,
                generation,
                assignments: targets.filter((row) => row.nodeId === evacuation.nodeId).map((row) => row.id),
              },
              correlationId: evacuation.correlationId,
              occurredAt: now,
            });
          }
          if (last === undefined)
            throw new LunaNexaError(ErrorCode.VALIDATION_FAILED, 'an evacuation batch names no node');
          // The batch's last receipt: every one before it is in the chain it commits to.
          return { generation, stopped: targets.length, receipt: last };
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
