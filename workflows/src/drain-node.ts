import { getExternalWorkflowHandle, patched, proxyActivities, sleep } from '@temporalio/workflow';
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
 * Histories recorded before drains became make-before-break waited for the node's in-flight requests with the
 * node already out of the routes, then evacuated; they replay that way.
 */
const MAKE_BEFORE_BREAK = 'safe-drain-make-before-break';
/** The deployment workflow's bound on waiting for a replacement to be Ready (REPLACE_WAIT_MS there). */
const REPLACEMENT_WAIT_MS = 120_000;

/**
 * DrainNode, make-before-break: cordon and mark Draining (no new placements;
 * the node's replicas keep serving) → ask each deployment with a replica there
 * to evacuate the node (the deployment's own workflow is the only writer of
 * its desired state, so there is no race with its lease renewals): it places a
 * replacement, waits until it is Ready — from then on the gateway sends new
 * requests there (libs/domain `servingReplicas`) — and only then stops the
 * replica here, whose agent lets it finish its in-flight requests before
 * SIGTERM → wait until the agent reports the replicas stopped (or the node
 * stops answering), bounded → Drained, with the receipt. A replica with
 * nowhere to go (a forced drain) is stopped without a replacement.
 */
export async function drainNodeWorkflow(input: DrainNodeWorkflowInput): Promise<DrainNodeWorkflowResult> {
  const base = { nodeId: input.nodeId, actor: input.actor, correlationId: input.correlationId };
  const makeBeforeBreak = patched(MAKE_BEFORE_BREAK);
  // Activity arguments are not part of replay's determinism check, so the override rides on the same command.
  await steps.beginDrain(input.forced ? { ...base, forced: input.forced } : base);
  const start = await steps.nodeWorkload({ nodeId: input.nodeId });
  if (makeBeforeBreak) return drainMakeBeforeBreak(input, base, start);
  const deadline = Date.now() + input.timeoutSeconds * 1000;
  let current = start;
  while (current.inFlight > 0 && current.reachable && Date.now() < deadline) {
    await sleep('1 second');
    current = await steps.nodeWorkload({ nodeId: input.nodeId });
  }
  const inFlightAtTimeout = current.reachable ? current.inFlight : 0;
  await evacuate(input, current.runningDeploymentIds);
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

type NodeWorkload = Awaited<ReturnType<typeof steps.nodeWorkload>>;

async function evacuate(input: DrainNodeWorkflowInput, deploymentIds: readonly string[]): Promise<void> {
  for (const deploymentId of deploymentIds) {
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
}

async function drainMakeBeforeBreak(
  input: DrainNodeWorkflowInput,
  base: { readonly nodeId: string; readonly actor: string; readonly correlationId: string },
  start: NodeWorkload,
): Promise<DrainNodeWorkflowResult> {
  await evacuate(input, start.runningDeploymentIds);
  // Each replacement may take the deployment's whole bound to be Ready, then the agent drains the old replica.
  const deadline = Date.now() + REPLACEMENT_WAIT_MS + input.timeoutSeconds * 1000 + STOP_WAIT_MS;
  let current = start;
  for (;;) {
    current = await steps.nodeWorkload({ nodeId: input.nodeId });
    if (
      (current.replicas === 0 && current.stillRunning === 0) ||
      !current.reachable ||
      Date.now() >= deadline
    )
      break;
    await sleep('1 second');
  }
  const inFlightAtEnd = current.reachable ? current.inFlight : 0;
  const receipt = await steps.completeDrain({
    ...base,
    evidence: {
      makeBeforeBreak: true,
      replicasAtStart: start.replicas,
      inFlightAtStart: start.inFlight,
      inFlightAtTimeout: inFlightAtEnd,
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
    inFlightAtTimeout: inFlightAtEnd,
    stoppedAssignments: start.replicas,
    receiptHash: receipt.hash,
  };
}
