import {
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  patched,
  proxyActivities,
  setHandler,
} from '@temporalio/workflow';
import type {
  DeploymentWorkflowInput,
  DeploymentWorkflowResult,
  DeploymentWorkflowStatus,
  EvacuateNodeSignal,
  RestartReplicaSignal,
  StopDeploymentSignal,
} from '@lunanexa/contracts';
import { DEPLOYMENT_QUERIES, DEPLOYMENT_SIGNALS } from '@lunanexa/contracts/dist/src/workflow-constants';
import type { Activities } from '@lunanexa/activities';

// A worker killed mid-activity is noticed when this runs out: short enough to resume quickly, long enough
// for one SSH push per replica (connect 10 s + reply 15 s at worst).
const steps = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds', maximumAttempts: 30 },
});

export const stopDeploymentSignal = defineSignal<[StopDeploymentSignal]>(DEPLOYMENT_SIGNALS.stop);
export const evacuateNodeSignal = defineSignal<[EvacuateNodeSignal]>(DEPLOYMENT_SIGNALS.evacuateNode);
export const restartReplicaSignal = defineSignal<[RestartReplicaSignal]>(DEPLOYMENT_SIGNALS.restartReplica);
export const deploymentStatusQuery = defineQuery<DeploymentWorkflowStatus>(DEPLOYMENT_QUERIES.status);

/** Poll period while converging (agents report every few seconds). */
const CONVERGE_POLL_MS = 1_000;
/** How long an evacuation waits for the replacement to be Ready before it stops the replica anyway. */
const REPLACE_WAIT_MS = 120_000;
/** Histories recorded before evacuations placed the replacement first replay the old order. */
const REPLACE_BEFORE_STOP = 'evacuate-replace-before-stop';
/** How long a healing restart waits for the agent to report the replica stopped before running it again. */
const RESTART_STOP_WAIT_MS = 30_000;
/** Histories recorded before evacuations arriving together were handled as one replay one at a time. */
const EVACUATE_TOGETHER = 'evacuate-together';
/** Iterations before continue-as-new, so history stays small for a deployment that runs for months. */
const ITERATIONS_PER_RUN = 500;
/** How long a stop waits for agents to confirm before finishing anyway (unreachable nodes fence themselves by lease). */
const STOP_WAIT_MS = 120_000;

/**
 * One deployment's lifetime, and the only writer of its desired state:
 * record → place → push signed assignments → wait for the agents to report
 * Ready → keep the assignment leases renewed → on `evacuateNode` (DrainNode,
 * NodeRecovery) place a replacement on an eligible node, wait (bounded) until
 * it is Ready, then stop the replica there → on
 * `stopDeployment` push Stop at a new generation, wait for Stopped, finish.
 * Every step is an idempotent activity keyed by ids, so a worker killed
 * anywhere resumes without a second assignment or runtime.
 */
export async function deploymentWorkflow(input: DeploymentWorkflowInput): Promise<DeploymentWorkflowResult> {
  const deploymentId = input.request.deploymentId;
  const base = { deploymentId, actor: input.actor, correlationId: input.correlationId };
  let stop: StopDeploymentSignal | null = null;
  const evacuations: EvacuateNodeSignal[] = [];
  const evacuated = new Set<string>();
  let status: DeploymentWorkflowStatus = {
    deploymentId,
    state: 'Pending',
    generation: 1,
    readyReplicas: 0,
    stopping: false,
  };
  setHandler(stopDeploymentSignal, (signal) => {
    stop ??= signal;
  });
  setHandler(evacuateNodeSignal, (signal) => {
    evacuations.push(signal);
  });
  const restarts: RestartReplicaSignal[] = [];
  setHandler(restartReplicaSignal, (signal) => {
    restarts.push(signal);
  });
  setHandler(deploymentStatusQuery, () => status);

  /**
   * Every pending evacuation at once (nodes lost together, drains started
   * together): replacements for all of them are placed off all of them,
   * pushed, and waited for (bounded) as one, then each node's replica is
   * stopped. An evacuation signalled while waiting joins the wait. Taking
   * them one at a time would wait for a deployment that cannot be whole
   * until the next node's replacement is placed (REPLACE_WAIT_MS per node).
   */
  const evacuateTogether = async (): Promise<void> => {
    const batch: EvacuateNodeSignal[] = [];
    const take = (): void => {
      for (let next = evacuations.shift(); next !== undefined; next = evacuations.shift()) {
        batch.push(next);
        evacuated.add(next.nodeId);
      }
    };
    take();
    const until = Date.now() + REPLACE_WAIT_MS;
    let placeAgain = true;
    let created = 0;
    for (;;) {
      if (placeAgain) {
        placeAgain = false;
        // Replacement first (a drain keeps serving until it is Ready; a lost node's replica serves nothing meanwhile).
        const replacement = await steps.placeDeployment({
          ...base,
          excludeNodeIds: [...evacuated],
          leaseSeconds: input.leaseSeconds,
        });
        created += replacement.created;
        if (replacement.created > 0)
          await steps.pushDeploymentAssignments({ deploymentId, leaseSeconds: input.leaseSeconds });
        // Nowhere to put a replacement: stop the replicas without waiting, as a single evacuation does.
        if (created === 0) break;
      }
      const nodeIds = batch.map((evacuation) => evacuation.nodeId);
      const progress = await steps.nodeRecoveryProgress({
        nodeId: nodeIds[0] ?? '',
        nodeIds,
        deployments: [deploymentId],
      });
      if (progress.complete || stop !== null || Date.now() >= until) break;
      await condition(() => stop !== null || evacuations.length > 0, CONVERGE_POLL_MS);
      if (evacuations.length > 0) {
        take();
        placeAgain = true;
      }
    }
    for (const evacuation of batch) {
      await steps.stopReplicas({
        deploymentId,
        actor: evacuation.actor,
        correlationId: evacuation.correlationId,
        nodeIds: [evacuation.nodeId],
        leaseSeconds: input.leaseSeconds,
      });
    }
  };

  const iteration = input.iteration ?? 0;
  if (iteration === 0) await steps.createDeploymentRecord({ ...base, request: input.request });
  const renewEveryMs = Math.max(5_000, Math.floor((input.leaseSeconds * 1000) / 3));
  let lastPush = -Infinity;
  let needsPush = true;

  for (let i = 0; i < ITERATIONS_PER_RUN; i++) {
    if (stop !== null) break;
    while (evacuations.length > 0) {
      if (patched(EVACUATE_TOGETHER)) {
        await evacuateTogether();
        needsPush = true;
        continue;
      }
      const evacuation = evacuations.shift() as EvacuateNodeSignal;
      evacuated.add(evacuation.nodeId);
      if (patched(REPLACE_BEFORE_STOP)) {
        // Replacement first (a drain keeps serving until it is Ready; a lost node's replica serves nothing meanwhile).
        const replacement = await steps.placeDeployment({
          ...base,
          excludeNodeIds: [...evacuated],
          leaseSeconds: input.leaseSeconds,
        });
        if (replacement.created > 0) {
          await steps.pushDeploymentAssignments({ deploymentId, leaseSeconds: input.leaseSeconds });
          const until = Date.now() + REPLACE_WAIT_MS;
          for (;;) {
            const progress = await steps.nodeRecoveryProgress({
              nodeId: evacuation.nodeId,
              deployments: [deploymentId],
            });
            if (progress.complete || stop !== null || Date.now() >= until) break;
            await condition(() => stop !== null, CONVERGE_POLL_MS);
          }
        }
      }
      await steps.stopReplicas({
        deploymentId,
        actor: evacuation.actor,
        correlationId: evacuation.correlationId,
        nodeIds: [evacuation.nodeId],
        leaseSeconds: input.leaseSeconds,
      });
      needsPush = true;
    }
    while (restarts.length > 0) {
      // Healing restart: Stop at a new generation, wait (bounded) for the agent to stop it, Run at the next.
      const restart = restarts.shift() as RestartReplicaSignal;
      if (evacuated.has(restart.nodeId)) continue;
      const stopped = await steps.stopReplicas({
        deploymentId,
        actor: restart.actor,
        correlationId: restart.correlationId,
        nodeIds: [restart.nodeId],
        leaseSeconds: input.leaseSeconds,
        step: `restart-${restart.assignmentId}-${iteration}.${i}`,
      });
      if (stopped.stopped === 0) continue;
      await steps.pushDeploymentAssignments({ deploymentId, leaseSeconds: input.leaseSeconds });
      const until = Date.now() + RESTART_STOP_WAIT_MS;
      for (;;) {
        const seen = await steps.replicaObservation({ assignmentId: restart.assignmentId });
        const done =
          seen === null ||
          (seen.observedGeneration !== null &&
            seen.observedGeneration >= stopped.generation &&
            (seen.observedState === 'Stopped' || seen.observedState === 'Failed'));
        if (done || stop !== null || Date.now() >= until) break;
        await condition(() => stop !== null, CONVERGE_POLL_MS);
      }
      if (stop !== null) break;
      await steps.runReplicaAgain({
        ...base,
        actor: restart.actor,
        correlationId: restart.correlationId,
        assignmentId: restart.assignmentId,
        leaseSeconds: input.leaseSeconds,
      });
      needsPush = true;
    }
    const placement = await steps.placeDeployment({
      ...base,
      excludeNodeIds: [...evacuated],
      leaseSeconds: input.leaseSeconds,
    });
    if (placement.created > 0) needsPush = true;
    if (needsPush || Date.now() - lastPush >= renewEveryMs) {
      const pushed = await steps.pushDeploymentAssignments({
        deploymentId,
        leaseSeconds: input.leaseSeconds,
      });
      lastPush = Date.now();
      // An unreachable node gets the push again on the next pass; its agent keeps the last lease meanwhile.
      needsPush = pushed.unreachable.length > 0;
    }
    const observed = await steps.observeDeployment(base);
    status = {
      deploymentId,
      state: observed.state,
      generation: observed.generation,
      readyReplicas: observed.readyReplicas,
      stopping: false,
    };
    const converged = observed.state === 'Ready' && placement.missing === 0 && !needsPush;
    // Converged: sleep until the next lease renewal or a signal; otherwise poll the agents' reports.
    await condition(
      () => stop !== null || evacuations.length > 0 || restarts.length > 0,
      converged ? renewEveryMs : placement.missing > 0 ? 5 * CONVERGE_POLL_MS : CONVERGE_POLL_MS,
    );
  }

  if (stop === null) {
    await continueAsNew<typeof deploymentWorkflow>({ ...input, iteration: iteration + 1 });
  }
  const stopping = stop as unknown as StopDeploymentSignal;
  const stopBase = { deploymentId, actor: stopping.actor, correlationId: stopping.correlationId };
  await steps.stopReplicas({ ...stopBase, nodeIds: null, leaseSeconds: input.leaseSeconds });
  status = { ...status, state: 'Stopping', stopping: true };
  const deadline = Date.now() + STOP_WAIT_MS;
  for (;;) {
    await steps.pushDeploymentAssignments({ deploymentId, leaseSeconds: input.leaseSeconds });
    const observed = await steps.observeDeployment(stopBase);
    status = { ...status, state: observed.state, generation: observed.generation };
    if (observed.stopped || Date.now() >= deadline) break;
    await condition(() => false, 2 * CONVERGE_POLL_MS);
  }
  const receipt = await steps.finishDeployment({ ...stopBase, state: 'Stopped' });
  status = { ...status, state: 'Stopped' };
  return { deploymentId, state: 'Stopped', receiptHash: receipt.hash };
}
