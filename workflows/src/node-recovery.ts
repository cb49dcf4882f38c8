import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import {
  ParentClosePolicy,
  continueAsNew,
  getExternalWorkflowHandle,
  proxyActivities,
  sleep,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import type {
  EvacuateNodeSignal,
  NodeLeaseWatchWorkflowInput,
  NodeLeaseWatchWorkflowResult,
  NodeRecoveryWorkflowInput,
  NodeRecoveryWorkflowResult,
} from '@lunanexa/contracts';
import { DEPLOYMENT_SIGNALS } from '@lunanexa/contracts/dist/src/workflow-constants';
import type { Activities } from '@lunanexa/activities';

const steps = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds', maximumAttempts: 20 },
});

/** Passes per run before continue-as-new, so the watch loop's history stays small. */
const PASSES_PER_RUN = 500;

/** Recovery ids the loop remembers having started, so a pass does not ask Temporal again for each. */
const REMEMBERED_RECOVERIES = 1000;

/**
 * NodeLeaseWatch: the one standing loop (fixed id, started by every worker
 * with USE_EXISTING) that finds lost nodes (libs/domain watchNodeLeases:
 * lease expired and seen silent for the grace period while other nodes'
 * heartbeats arrived, replicas still meant to run there) and starts one
 * NodeRecovery per loss, under an id derived from the node and the expired
 * lease, so a second pass, a second worker or a replayed history cannot
 * start it twice. Recoveries outlive the loop's continue-as-new (ABANDON).
 */
export async function nodeLeaseWatchWorkflow(
  input: NodeLeaseWatchWorkflowInput,
): Promise<NodeLeaseWatchWorkflowResult> {
  const started: string[] = [];
  const known = new Set<string>();
  let suspects = input.suspects ?? {};
  let passes = 0;
  for (;;) {
    const pass = await steps.findLostNodes({ graceSeconds: input.graceSeconds, suspects });
    suspects = pass.suspects;
    for (const node of pass.lost) {
      if (known.has(node.workflowId)) continue;
      const recovery: NodeRecoveryWorkflowInput = {
        nodeId: node.nodeId,
        leaseExpiredAt: node.leaseExpiredAt,
        replacementTimeoutSeconds: input.replacementTimeoutSeconds,
        actor: 'system:node-recovery',
        correlationId: node.workflowId,
        requestId: node.workflowId,
      };
      try {
        await startChild(nodeRecoveryWorkflow, {
          workflowId: node.workflowId,
          args: [recovery],
          parentClosePolicy: ParentClosePolicy.ABANDON,
        });
        started.push(node.workflowId);
      } catch (error) {
        // Started by an earlier run of this loop (or another worker's): that recovery owns this loss.
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      }
      known.add(node.workflowId);
      if (known.size > REMEMBERED_RECOVERIES) known.delete(known.values().next().value as string);
    }
    passes += 1;
    const total = (input.passesSoFar ?? 0) + passes;
    if (input.maxPasses !== undefined && total >= input.maxPasses)
      return { passes: total, recoveries: started };
    await sleep(input.intervalSeconds * 1000);
    if (passes >= PASSES_PER_RUN || workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof nodeLeaseWatchWorkflow>({ ...input, passesSoFar: total, suspects });
    }
  }
}

/**
 * NodeRecovery: a node's lease expired past the grace period. Its replicas
 * are marked Lost (never Ready, never routed) with a receipt; each affected
 * deployment is asked to evacuate the node — its own workflow, the only
 * writer of its desired state, stops the replica there at a new generation
 * (so a returning agent's runtime is stopped, never served again) and
 * places a replacement on an eligible node; then this waits, bounded, until
 * every deployment is whole again elsewhere and writes the receipt with the
 * time it took.
 */
export async function nodeRecoveryWorkflow(
  input: NodeRecoveryWorkflowInput,
): Promise<NodeRecoveryWorkflowResult> {
  const startedAt = Date.now();
  const lost = await steps.markNodeLost({
    nodeId: input.nodeId,
    leaseExpiredAt: input.leaseExpiredAt,
    actor: input.actor,
    correlationId: input.correlationId,
  });
  for (const deploymentId of lost.deployments) {
    const signal: EvacuateNodeSignal = {
      nodeId: input.nodeId,
      actor: input.actor,
      correlationId: input.correlationId,
    };
    await getExternalWorkflowHandle(`deployment/${deploymentId}`).signal(
      DEPLOYMENT_SIGNALS.evacuateNode,
      signal,
    );
  }
  const deadline = startedAt + input.replacementTimeoutSeconds * 1000;
  let progress = await steps.nodeRecoveryProgress({ nodeId: input.nodeId, deployments: lost.deployments });
  while (!progress.complete && Date.now() < deadline) {
    await sleep('1 second');
    progress = await steps.nodeRecoveryProgress({ nodeId: input.nodeId, deployments: lost.deployments });
  }
  const secondsToReplaced = progress.complete ? (Date.now() - startedAt) / 1000 : null;
  const receipt = await steps.completeNodeRecovery({
    nodeId: input.nodeId,
    actor: input.actor,
    correlationId: input.correlationId,
    evidence: {
      leaseExpiredAt: input.leaseExpiredAt,
      lostAssignments: lost.lostAssignments,
      deployments: progress.progress,
      replaced: progress.complete,
      secondsToReplaced,
    },
  });
  return {
    nodeId: input.nodeId,
    lostAssignments: lost.lostAssignments,
    deployments: lost.deployments,
    replaced: progress.complete,
    secondsToReplaced,
    receiptHash: receipt.hash,
  };
}
