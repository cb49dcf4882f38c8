import {
  allHandlersFinished,
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  defineUpdate,
  getExternalWorkflowHandle,
  patched,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type {
  CanaryObservedSignal,
  DeploymentWorkflowInput,
  DeploymentWorkflowResult,
  DeploymentWorkflowStatus,
  EvacuateNodeSignal,
  RestartReplicaSignal,
  StopDeploymentSignal,
} from '@lunanexa/contracts';
import {
  DEPLOYMENT_QUERIES,
  DEPLOYMENT_SIGNALS,
  DEPLOYMENT_UPDATES,
  ROLLOUT_SIGNALS,
} from '@lunanexa/contracts/dist/src/workflow-constants';
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
export const replicaObservedSignal = defineSignal<[]>(DEPLOYMENT_SIGNALS.replicaObserved);
export const canaryObservedSignal = defineSignal<[CanaryObservedSignal]>(ROLLOUT_SIGNALS.canaryObserved);
export const deploymentRecordedUpdate = defineUpdate<DeploymentWorkflowStatus>(DEPLOYMENT_UPDATES.recorded);
export const stopDeploymentUpdate = defineUpdate<DeploymentWorkflowResult, [StopDeploymentSignal]>(
  DEPLOYMENT_UPDATES.stop,
);

/** Poll period while converging, for histories recorded before the agent channel signalled observations. */
const CONVERGE_POLL_MS = 1_000;
/**
 * Runs from here on wait for `replicaObserved` (the agent channel signals each changed report) and tell a parent
 * rollout what they observed; the tables are re-read on this slower timer only in case a signal was lost.
 */
const OBSERVATIONS_SIGNALLED = 'replica-observations-signalled';
const OBSERVATION_FALLBACK_MS = 15_000;
/** How long an evacuation waits for the replacement to be Ready before it stops the replica anyway. */
const REPLACE_WAIT_MS = 120_000;
/** Histories recorded before evacuations placed the replacement first replay the old order. */
const REPLACE_BEFORE_STOP = 'evacuate-replace-before-stop';
/**
 * Histories recorded before pushes to an unreachable node backed off replay a retry every CONVERGE_POLL_MS
 * (a placement, a push and an observation per second for as long as the node stayed down).
 */
const UNREACHABLE_PUSH_BACKOFF = 'unreachable-push-backoff';
/** The longest wait between pushes to a node that stays unreachable; its agent keeps its last lease meanwhile. */
const UNREACHABLE_RETRY_MAX_MS = 60_000;
/** Histories recorded before an evacuation batch stopped its nodes' replicas in one step replay one per node. */
const EVACUATION_STOPS_TOGETHER = 'evacuation-stops-together';
/**
 * Histories recorded before a push between lease renewals sent only what no agent had acknowledged replay a full
 * push, and a restarted renewal clock, on every push.
 */
const PUSH_NEW_BETWEEN_RENEWALS = 'push-new-between-renewals';
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
  const signalled = patched(OBSERVATIONS_SIGNALLED);
  let observationsSignalled = 0;
  let observationsSeen = 0;
  setHandler(replicaObservedSignal, () => {
    observationsSignalled += 1;
  });
  /** Waits for `until`, a new replica observation, or the (fallback) timeout. */
  const awaitObservation = async (until: () => boolean, pollMs: number): Promise<void> => {
    if (!signalled) {
      await condition(until, pollMs);
      return;
    }
    await condition(() => until() || observationsSignalled !== observationsSeen, OBSERVATION_FALLBACK_MS);
    observationsSeen = observationsSignalled;
  };
  let recorded = false;
  let finished: DeploymentWorkflowResult | null = null;
  setHandler(deploymentRecordedUpdate, async () => {
    await condition(() => recorded);
    return status;
  });
  setHandler(
    stopDeploymentUpdate,
    async (signal) => {
      stop ??= signal;
      await condition(() => finished !== null);
      return finished as unknown as DeploymentWorkflowResult;
    },
    {
      validator: (signal: StopDeploymentSignal) => {
        if (!signal || typeof signal.actor !== 'string' || signal.actor === '')
          throw new Error('stop needs an actor');
      },
    },
  );
  const parent = workflowInfo().parent;
  let toldParent: string | null = null;
  /** A rollout waits for its canary's state: told when it changes rather than reading it in a loop. */
  const tellParent = async (state: string): Promise<void> => {
    if (!signalled || parent === undefined || state === toldParent) return;
    toldParent = state;
    try {
      await getExternalWorkflowHandle(parent.workflowId).signal(canaryObservedSignal, {
        deploymentId,
        state,
      });
    } catch {
      // The rollout has ended (the canary outlives it once promoted): nobody is waiting.
    }
  };

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
          await steps.pushDeploymentAssignments({
            deploymentId,
            leaseSeconds: input.leaseSeconds,
            skipNodeIds: [...evacuated],
            onlyUnacknowledged: true,
          });
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
      await awaitObservation(() => stop !== null || evacuations.length > 0, CONVERGE_POLL_MS);
      if (evacuations.length > 0) {
        take();
        placeAgain = true;
      }
    }
    if (patched(EVACUATION_STOPS_TOGETHER)) {
      const leaving = batch.filter((evacuation) => !(evacuation.onlyIfReplaced === true && created === 0));
      // Nowhere to move those: they keep serving (and being renewed) where they are.
      for (const evacuation of batch) if (!leaving.includes(evacuation)) evacuated.delete(evacuation.nodeId);
      if (leaving.length > 0)
        await steps.stopEvacuatedReplicas({
          deploymentId,
          leaseSeconds: input.leaseSeconds,
          evacuations: leaving.map(({ nodeId, actor, correlationId }) => ({ nodeId, actor, correlationId })),
        });
      return;
    }
    for (const evacuation of batch) {
      if (evacuation.onlyIfReplaced === true && created === 0) {
        // Nowhere to move it: it keeps serving (and being renewed) where it is.
        evacuated.delete(evacuation.nodeId);
        continue;
      }
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
  recorded = true;
  const renewEveryMs = Math.max(5_000, Math.floor((input.leaseSeconds * 1000) / 3));
  let lastPush = -Infinity;
  let needsPush = true;
  /** Pushes in a row that left a node unreachable: the retry waits twice as long each time (bounded). */
  let unreachablePushes = 0;

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
          await steps.pushDeploymentAssignments({
            deploymentId,
            leaseSeconds: input.leaseSeconds,
            skipNodeIds: [...evacuated],
          });
          const until = Date.now() + REPLACE_WAIT_MS;
          for (;;) {
            const progress = await steps.nodeRecoveryProgress({
              nodeId: evacuation.nodeId,
              deployments: [deploymentId],
            });
            if (progress.complete || stop !== null || Date.now() >= until) break;
            await awaitObservation(() => stop !== null, CONVERGE_POLL_MS);
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
        await awaitObservation(() => stop !== null, CONVERGE_POLL_MS);
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
    const renewalDue = Date.now() - lastPush >= renewEveryMs;
    if (needsPush || renewalDue) {
      const renewal = renewalDue || !patched(PUSH_NEW_BETWEEN_RENEWALS);
      const pushed = await steps.pushDeploymentAssignments({
        deploymentId,
        leaseSeconds: input.leaseSeconds,
        // Between renewals, only what no agent has acknowledged: new replicas, an evacuation's Stop, a retry for a
        // node that was unreachable. Re-sending every replica each time cost a connection per replica.
        ...(renewal ? {} : { onlyUnacknowledged: true }),
      });
      if (renewal) lastPush = Date.now();
      // An unreachable node gets the push again on the next pass; its agent keeps the last lease meanwhile.
      needsPush = pushed.unreachable.length > 0;
      unreachablePushes = needsPush ? unreachablePushes + 1 : 0;
    }
    const observed = await steps.observeDeployment(base);
    status = {
      deploymentId,
      state: observed.state,
      generation: observed.generation,
      readyReplicas: observed.readyReplicas,
      stopping: false,
    };
    await tellParent(observed.state);
    const converged = observed.state === 'Ready' && placement.missing === 0 && !needsPush;
    const woken = () => stop !== null || evacuations.length > 0 || restarts.length > 0;
    if (signalled && !converged && placement.missing === 0 && !needsPush) {
      // Placed and pushed: what happens next is the agents' to report.
      await awaitObservation(woken, CONVERGE_POLL_MS);
    } else if (signalled && converged) {
      // Until the next lease renewal, unless a replica reports a change (a failure, say) first.
      await condition(() => woken() || observationsSignalled !== observationsSeen, renewEveryMs);
      observationsSeen = observationsSignalled;
    } else if (needsPush && placement.missing === 0 && patched(UNREACHABLE_PUSH_BACKOFF)) {
      // Only a down node is left to reach (a lost one keeps a Stop to hear): 1 s, 2 s, 4 s … up to a minute.
      const backoffMs = CONVERGE_POLL_MS * 2 ** Math.min(unreachablePushes - 1, 16);
      await condition(woken, Math.min(backoffMs, UNREACHABLE_RETRY_MAX_MS));
    } else {
      // Converged: sleep until the next lease renewal or a signal; otherwise poll the agents' reports.
      await condition(
        woken,
        converged ? renewEveryMs : placement.missing > 0 ? 5 * CONVERGE_POLL_MS : CONVERGE_POLL_MS,
      );
    }
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
    if (signalled) await awaitObservation(() => false, 2 * CONVERGE_POLL_MS);
    else await condition(() => false, 2 * CONVERGE_POLL_MS);
  }
  const receipt = await steps.finishDeployment({ ...stopBase, state: 'Stopped' });
  status = { ...status, state: 'Stopped' };
  finished = { deploymentId, state: 'Stopped', receiptHash: receipt.hash };
  // A stop asked by update answers with this result before the run closes.
  await condition(allHandlersFinished);
  return finished;
}
