import { getExternalWorkflowHandle, proxyActivities, sleep } from '@temporalio/workflow';
import type {
  DrainNodeWorkflowInput,
  DrainNodeWorkflowResult,
  EvacuateNodeSignal,
} from '@lunanexa/contracts';
import { DEPLOYMENT_SIGNALS } from '@lunanexa/contracts/dist/src/workflow-constants';
import type { Activities } from '@lunanexa/activities';

const steps = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds', maximumAttempts: 20 },
});

/** How long stopping the replicas may take once the in-flight wait is over. */
const STOP_WAIT_MS = 120_000;

/**
 * DrainNode: cordon and mark Draining (the gateway stops sending new requests
 * to the node at its next route refresh) → wait for the node's in-flight
 * requests to finish, bounded by the timeout → ask each deployment with a
 * replica there to evacuate the node (the deployment's own workflow is the
 * only writer of its desired state, so there is no race with its lease
 * renewals) → wait until the agent reports the replicas stopped (or the node
 * stops answering) → Drained, with the receipt.
 */
export async function drainNodeWorkflow(input: DrainNodeWorkflowInput): Promise<DrainNodeWorkflowResult> {
  const base = { nodeId: input.nodeId, actor: input.actor, correlationId: input.correlationId };
  // Activity arguments are not part of replay's determinism check, so the override rides on the same command.
  await steps.beginDrain(input.forced ? { ...base, forced: input.forced } : base);
  const start = await steps.nodeWorkload({ nodeId: input.nodeId });
  const deadline = Date.now() + input.timeoutSeconds * 1000;
  let current = start;
  while (current.inFlight > 0 && current.reachable && Date.now() < deadline) {
    await sleep('1 second');
    current = await steps.nodeWorkload({ nodeId: input.nodeId });
  }
  const inFlightAtTimeout = current.reachable ? current.inFlight : 0;
  for (const deploymentId of current.runningDeploymentIds) {
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
  const stopDeadline = Date.now() + STOP_WAIT_MS;
  for (;;) {
    current = await steps.nodeWorkload({ nodeId: input.nodeId });
    if (
      (current.replicas === 0 && current.stillRunning === 0) ||
      !current.reachable ||
      Date.now() >= stopDeadline
    )
      break;
    await sleep('1 second');
  }
  const receipt = await steps.completeDrain({
    ...base,
    evidence: {
      replicasAtStart: start.replicas,
      inFlightAtStart: start.inFlight,
      inFlightAtTimeout,
      deployments: start.runningDeploymentIds,
      replicasStillRunning: current.stillRunning,
      nodeReachable: current.reachable,
    },
  });
  return {
    nodeId: input.nodeId,
    state: 'Drained',
    replicasAtStart: start.replicas,
    inFlightAtStart: start.inFlight,
    inFlightAtTimeout,
    stoppedAssignments: start.replicas,
    receiptHash: receipt.hash,
  };
}
