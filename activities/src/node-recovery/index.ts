import { deploymentRecoveryProgress, listNodeLeases, markNodeReplicasLost } from '@lunanexa/persistence';
import {
  nodeRecoveryWorkflowId,
  recoveryComplete,
  watchNodeLeases,
  type DeploymentRecoveryProgress,
  type LeaseSuspects,
} from '@lunanexa/domain';
import type { DataSource } from 'typeorm';
import type { Clock } from '../clock';
import { currentWorkflowId, receiptedTransaction, receiptOnce, typed, type Receipt } from '../fleet-support';

export interface NodeRecoveryActivityPorts {
  readonly db: DataSource;
  readonly clock: Clock;
}

export interface LostNodeFound {
  readonly nodeId: string;
  readonly leaseExpiredAt: string;
  readonly workflowId: string;
}

/**
 * NodeRecovery's steps: load, call the libs/domain decision, write with a
 * receipt in the same transaction. Every step is idempotent by the
 * recovery's workflow id, so a retried or replayed step changes nothing twice.
 */
export function createNodeRecoveryActivities({ db, clock }: NodeRecoveryActivityPorts) {
  return {
    /** One pass of the lease watch (libs/domain watchNodeLeases); the workflow carries `suspects` to the next. */
    async findLostNodes(input: {
      readonly graceSeconds: number;
      readonly suspects: LeaseSuspects;
    }): Promise<{ lost: LostNodeFound[]; suspects: LeaseSuspects }> {
      return typed(async () => {
        const outcome = watchNodeLeases(
          await listNodeLeases(db),
          clock.now(),
          input.graceSeconds * 1000,
          input.suspects,
        );
        return {
          lost: outcome.lost.map((node) => ({
            nodeId: node.nodeId,
            leaseExpiredAt: node.leaseExpiredAt.toISOString(),
            workflowId: nodeRecoveryWorkflowId(node.nodeId, node.leaseExpiredAt),
          })),
          suspects: outcome.suspects,
        };
      });
    },

    /** Marks the lost node's replicas Lost and writes `node.recovery.start` naming them. */
    async markNodeLost(input: {
      readonly nodeId: string;
      readonly leaseExpiredAt: string;
      readonly actor: string;
      readonly correlationId: string;
    }): Promise<{ lostAssignments: string[]; deployments: string[]; receipt: Receipt }> {
      return typed(() =>
        receiptedTransaction(db, async (manager) => {
          const now = clock.now();
          const lost = await markNodeReplicasLost(
            manager,
            input.nodeId,
            `node lease expired at ${input.leaseExpiredAt}; being re-placed`,
            now,
          );
          const deployments = [...new Set(lost.map((replica) => replica.deploymentId))].sort();
          const receipt = await receiptOnce(manager, currentWorkflowId(), {
            actor: input.actor,
            action: 'node.recovery.start',
            step: 'lost',
            evidence: {
              nodeId: input.nodeId,
              leaseExpiredAt: input.leaseExpiredAt,
              lostAssignments: lost.map((replica) => replica.assignmentId),
              lastObservedStates: Object.fromEntries(
                lost.map((replica) => [replica.assignmentId, replica.lastObservedState]),
              ),
              deployments,
            },
            correlationId: input.correlationId,
            occurredAt: now,
          });
          return { lostAssignments: lost.map((replica) => replica.assignmentId), deployments, receipt };
        }),
      );
    },

    /**
     * How far each affected deployment is from whole again without the lost
     * node — or without every node in `nodeIds` when a deployment evacuates
     * several at once (nodes lost together).
     */
    async nodeRecoveryProgress(input: {
      readonly nodeId: string;
      readonly nodeIds?: readonly string[];
      readonly deployments: readonly string[];
    }): Promise<{ complete: boolean; progress: DeploymentRecoveryProgress[] }> {
      return typed(async () => {
        const progress = await deploymentRecoveryProgress(
          db,
          input.deployments,
          input.nodeIds ?? [input.nodeId],
        );
        return { complete: recoveryComplete(progress), progress };
      });
    },

    /** `node.recovery.complete`: what was lost, what replaced it and how long it took. */
    async completeNodeRecovery(input: {
      readonly nodeId: string;
      readonly actor: string;
      readonly correlationId: string;
      readonly evidence: Record<string, unknown>;
    }): Promise<Receipt> {
      return typed(() =>
        receiptedTransaction(db, (manager) =>
          receiptOnce(manager, currentWorkflowId(), {
            actor: input.actor,
            action: 'node.recovery.complete',
            step: 'complete',
            evidence: { nodeId: input.nodeId, ...input.evidence },
            correlationId: input.correlationId,
            occurredAt: clock.now(),
          }),
        ),
      );
    },
  };
}

export type NodeRecoveryActivities = ReturnType<typeof createNodeRecoveryActivities>;
