import type { DrainOverrideRecord } from '@lunanexa/contracts';
import { leaseHolds, nodeLifecycle, transition } from '@lunanexa/domain';
import { cordonNode, listAssignments } from '@lunanexa/persistence';
import { currentWorkflowId, receiptedTransaction, receiptOnce, typed, type Receipt } from '../fleet-support';
import { applyNodeEvent, existingNode, lockedNode } from './node-row';
import type { NodeActivityPorts, NodeStepInput } from './ports';

/** The drain workflow's steps: cordon and drain, watch the node's workload, complete. */
export function drainActivities({ db, clock }: NodeActivityPorts) {
  return {
    /** Cordons and moves Active → Draining; the gateway stops routing to the node at its next refresh. */
    async beginDrain(input: NodeStepInput & { readonly forced?: DrainOverrideRecord }): Promise<Receipt> {
      return typed(() =>
        receiptedTransaction(db, async (manager) => {
          const workflowId = currentWorkflowId();
          const node = await lockedNode(manager, input.nodeId);
          const now = clock.now();
          if (node.lifecycle === 'Active') await applyNodeEvent(manager, node, 'drain', now);
          else if (node.lifecycle !== 'Draining' && node.lifecycle !== 'Drained') {
            transition(nodeLifecycle, node.lifecycle, 'drain');
          }
          await cordonNode(manager, node.id, now);
          return receiptOnce(manager, workflowId, {
            actor: input.actor,
            action: 'node.drain.start',
            step: 'start',
            evidence: {
              nodeId: node.id,
              nodeName: node.name,
              from: node.lifecycle,
              // A forced drain says why it may strand replicas, and which, where the drain is recorded.
              ...(input.forced
                ? {
                    forced: true,
                    forceReason: input.forced.reason,
                    strandedDeployments: [...input.forced.strandedDeployments],
                  }
                : {}),
            },
            correlationId: input.correlationId,
            occurredAt: now,
          });
        }),
      );
    },

    /**
     * What the node is serving, as its agent last reported: replicas intended
     * to run there, their in-flight requests, and the deployments they belong
     * to (whose workflows own stopping them).
     */
    async nodeWorkload(input: { readonly nodeId: string }): Promise<{
      replicas: number;
      inFlight: number;
      runningDeploymentIds: string[];
      stillRunning: number;
      reachable: boolean;
    }> {
      return typed(async () => {
        const node = await existingNode(db, input.nodeId);
        const assignments = await listAssignments(db, { nodeId: node.id });
        const running = assignments.filter((a) => a.intent === 'Run');
        const stillRunning = assignments.filter(
          (a) => a.observedState !== null && !['Stopped', 'Failed'].includes(a.observedState),
        ).length;
        return {
          replicas: running.length,
          inFlight: running.reduce((sum, a) => sum + (a.inFlight ?? 0), 0),
          runningDeploymentIds: [...new Set(running.map((a) => a.deploymentId))].sort(),
          stillRunning,
          reachable: leaseHolds(node.leaseExpiresAt, clock.now()),
        };
      });
    },

    async completeDrain(
      input: NodeStepInput & { readonly evidence: Record<string, unknown> },
    ): Promise<Receipt> {
      return typed(() =>
        receiptedTransaction(db, async (manager) => {
          const workflowId = currentWorkflowId();
          const node = await lockedNode(manager, input.nodeId);
          const now = clock.now();
          if (node.lifecycle === 'Draining') await applyNodeEvent(manager, node, 'completeDrain', now);
          else if (node.lifecycle !== 'Drained') transition(nodeLifecycle, node.lifecycle, 'completeDrain');
          return receiptOnce(manager, workflowId, {
            actor: input.actor,
            action: 'node.drain.complete',
            step: 'complete',
            evidence: { nodeId: node.id, nodeName: node.name, ...input.evidence },
            correlationId: input.correlationId,
            occurredAt: now,
          });
        }),
      );
    },
  };
}
