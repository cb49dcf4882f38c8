import {
  ApplicationFailure,
  ActivityFailure,
  ParentClosePolicy,
  allHandlersFinished,
  condition,
  defineQuery,
  defineSignal,
  defineUpdate,
  getExternalWorkflowHandle,
  patched,
  proxyActivities,
  setHandler,
  startChild,
} from '@temporalio/workflow';
import type {
  RolloutSignal,
  RolloutState,
  RolloutWorkflowInput,
  RolloutWorkflowResult,
  RolloutWorkflowStatus,
  StepAnalysis,
} from '@lunanexa/contracts';
import {
  ROLLOUT_QUERIES,
  ROLLOUT_SIGNALS,
  ROLLOUT_UPDATES,
} from '@lunanexa/contracts/dist/src/workflow-constants';
import type { Activities } from '@lunanexa/activities';
import type { RolloutEndOutcome } from '@lunanexa/domain';
import { canaryObservedSignal, deploymentWorkflow, stopDeploymentSignal } from './deployment';

const steps = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds', maximumAttempts: 30 },
});
// Hashing a model artifact streams gigabytes from its store.
const verification = proxyActivities<Activities>({
  startToCloseTimeout: '2 hours',
  heartbeatTimeout: '2 minutes',
  retry: { initialInterval: '2 seconds', maximumInterval: '1 minute', maximumAttempts: 5 },
});

export const rolloutOperatorSignal = defineSignal<[RolloutSignal]>(ROLLOUT_SIGNALS.operator);
export const rolloutStatusQuery = defineQuery<RolloutWorkflowStatus>(ROLLOUT_QUERIES.status);
export const rolloutStartedUpdate = defineUpdate<RolloutWorkflowStatus>(ROLLOUT_UPDATES.started);
export const rolloutOperatorActionUpdate = defineUpdate<RolloutWorkflowStatus, [RolloutSignal]>(
  ROLLOUT_UPDATES.operatorAction,
);

/** How long the canary deployment may take to report Ready before the rollout fails. */
const CANARY_READY_TIMEOUT_MS = 15 * 60_000;
const READY_POLL_MS = 2_000;
/** Runs from here on wait for the canary's workflow to signal its state; the table is re-read on this timer. */
const CANARY_SIGNALLED = 'canary-observed-signalled';
const CANARY_FALLBACK_MS = 15_000;
/** How long an operator action's update waits for its effect before answering with the state so far. */
const OPERATOR_ACTION_WAIT_MS = 15_000;
const OPERATOR_ACTIONS = ['promote', 'rollback', 'abort', 'pause', 'resume'];
/** States in which the workflow still takes operator actions (a promoted one only while it bakes). */
const ACTIVE_STATES: readonly RolloutState[] = ['Verifying', 'Deploying', 'Canary', 'Paused'];

/** What the operator sees once the workflow has acted on an action (or gone past it). */
function actionTookEffect(action: RolloutSignal['action'], state: RolloutState): boolean {
  switch (action) {
    case 'promote':
      return state === 'Promoted';
    case 'rollback':
      return state === 'RolledBack';
    case 'abort':
      return state === 'Aborted' || state === 'RolledBack';
    case 'pause':
      return state === 'Paused';
    case 'resume':
      return state !== 'Paused';
    default:
      return true;
  }
}

/**
 * Moves an alias to a new model version, safely:
 *
 *   record → deploy policy (license, data class, runtime allowlist, hardware,
 *   evaluation, approval) → digest re-verified against the artifact store →
 *   canary deployment (child deployment workflow) Ready → for each step:
 *   weight → analysis window on a fixed sample → promote, or roll back on a
 *   breach → bake (the old stable keeps running, instant rollback) → stop the
 *   old stable.
 *
 * Refusals happen before anything is assigned. Before promotion the alias
 * revision never moves, so rollback means: canary weight 0, canary stopped —
 * the base revision was serving all along. Every step is an idempotent
 * activity that writes its receipt once, so a worker or api killed anywhere
 * resumes at the same step and no step runs twice.
 */
export async function rolloutWorkflow(input: RolloutWorkflowInput): Promise<RolloutWorkflowResult> {
  const result = await runRollout(input);
  // An operator action or start asked by update answers before the run closes.
  await condition(allHandlersFinished);
  return result;
}

async function runRollout(input: RolloutWorkflowInput): Promise<RolloutWorkflowResult> {
  const base = { rolloutId: input.rolloutId, actor: input.actor, correlationId: input.correlationId };
  const pending: RolloutSignal[] = [];
  let paused = false;
  let pauseSequence = 0;
  const analyses: StepAnalysis[] = [];
  let status: RolloutWorkflowStatus = {
    rolloutId: input.rolloutId,
    state: 'Verifying',
    step: -1,
    weight: 0,
    analyses,
  };
  let baking = false;
  let refusal: { code: string; reason: string } | null = null;
  const setStatus = (state: RolloutState, step = status.step, weight = status.weight) => {
    status = { rolloutId: input.rolloutId, state, step, weight, analyses: [...analyses], baking, refusal };
  };
  setHandler(rolloutOperatorSignal, (signal) => {
    pending.push(signal);
  });
  setHandler(rolloutStatusQuery, () => status);
  const canaryBySignal = patched(CANARY_SIGNALLED);
  let canaryReports = 0;
  let canarySeen = 0;
  setHandler(canaryObservedSignal, (signal) => {
    if (signal.deploymentId === input.canaryDeploymentId) canaryReports += 1;
  });
  let ended = false;
  setHandler(rolloutStartedUpdate, async () => {
    await condition(() => status.state !== 'Verifying' || ended);
    return status;
  });
  setHandler(
    rolloutOperatorActionUpdate,
    async (signal) => {
      pending.push(signal);
      await condition(() => ended || actionTookEffect(signal.action, status.state), OPERATOR_ACTION_WAIT_MS);
      return status;
    },
    {
      validator: (signal: RolloutSignal) => {
        if (!OPERATOR_ACTIONS.includes(signal.action))
          throw new Error(`unknown action ${String(signal.action)}`);
        const bakeRollback =
          status.state === 'Promoted' &&
          baking &&
          (signal.action === 'rollback' || signal.action === 'abort');
        if (ended || (!ACTIVE_STATES.includes(status.state) && !bakeRollback)) {
          throw ApplicationFailure.create({
            type: 'INVALID_TRANSITION',
            message: `rollout ${input.rolloutId} is ${status.state}${status.state === 'Promoted' ? ' and its bake period is over' : ''}; ${signal.action} does not apply`,
            nonRetryable: true,
          });
        }
      },
    },
  );

  const finish = (
    state: RolloutWorkflowResult['state'],
    receiptHash: string,
    aliasRevision: number,
    code: string | null = null,
    reason: string | null = null,
  ): RolloutWorkflowResult => {
    baking = false;
    if (state === 'Refused') refusal = { code: code ?? 'CONFLICT', reason: reason ?? 'refused' };
    ended = true;
    setStatus(state);
    return { rolloutId: input.rolloutId, state, code, reason, aliasRevision, receiptHash };
  };

  let baseRevision: number;
  try {
    baseRevision = (
      await steps.recordRollout({
        ...base,
        aliasId: input.aliasId,
        modelVersionId: input.modelVersionId,
        plan: input.plan,
      })
    ).baseRevision;
  } catch (error) {
    // Another rollout claimed the alias between the API's check and this one: refused, nothing written.
    if (
      error instanceof ActivityFailure &&
      error.cause instanceof ApplicationFailure &&
      error.cause.type === 'CONFLICT'
    ) {
      return finish('Refused', '', 0, 'CONFLICT', error.cause.message);
    }
    throw error;
  }

  const refuse = async (code: string, reason: string) => {
    const receipt = await steps.refuseRollout({ ...base, code, reason });
    return finish('Refused', receipt.hash, baseRevision, code, reason);
  };
  const policy = await steps.checkRolloutPolicy(base);
  if (!policy.allowed) return refuse(policy.code, policy.reason);
  const verified = await verification.verifyModelVersionArtifact({
    modelVersionId: input.modelVersionId,
    actor: input.actor,
    correlationId: input.correlationId,
  });
  if (!verified.ok) {
    return refuse(verified.code ?? 'DIGEST_MISMATCH', verified.message ?? 'artifact verification failed');
  }

  const stopDeployment = async (deploymentId: string | null) => {
    if (deploymentId === null) return;
    const workflowId = await steps.deploymentWorkflowId({ deploymentId });
    if (workflowId === null) return;
    try {
      await getExternalWorkflowHandle(workflowId).signal(stopDeploymentSignal, {
        actor: input.actor,
        correlationId: input.correlationId,
        requestId: input.requestId,
      });
    } catch {
      // Already finished (stopped by an operator, say): nothing left to stop.
    }
  };
  const endWithout = async (
    outcome: RolloutEndOutcome,
    trigger: 'analysis' | 'operator' | 'insufficient-traffic' | 'canary-not-ready',
    reason: string,
  ) => {
    const receipt = await steps.rollbackRollout({ ...base, outcome, trigger, reason });
    await stopDeployment(receipt.stopDeploymentId);
    return finish(outcome, receipt.hash, receipt.revision, null, reason);
  };

  setStatus('Deploying');
  await steps.markRolloutDeploying({
    ...base,
    canaryDeploymentId: input.canaryDeploymentId,
    digest: verified.digest,
  });
  await startChild(deploymentWorkflow, {
    workflowId: `deployment/${input.canaryDeploymentId}`,
    // The canary outlives the rollout when promoted: it becomes the alias's stable deployment.
    parentClosePolicy: ParentClosePolicy.ABANDON,
    args: [
      {
        request: {
          deploymentId: input.canaryDeploymentId,
          name: input.canaryDeploymentName,
          modelVersionId: input.modelVersionId,
          modelRef: input.modelRef,
          desiredReplicas: input.plan.replicas,
          requestedNodeId: null,
          purpose: 'Serving',
          rolloutId: input.rolloutId,
        },
        leaseSeconds: input.leaseSeconds,
        actor: input.actor,
        correlationId: input.correlationId,
        requestId: input.requestId,
      },
    ],
  });

  /** Applies queued operator signals; returns the one that ends or promotes the rollout, if any. */
  const takeSignals = async (): Promise<RolloutSignal | null> => {
    while (pending.length > 0) {
      const signal = pending.shift() as RolloutSignal;
      if (signal.action === 'pause' || signal.action === 'resume') {
        const wantPaused = signal.action === 'pause';
        if (wantPaused !== paused) {
          paused = wantPaused;
          pauseSequence += 1;
          await steps.setRolloutPaused({
            rolloutId: input.rolloutId,
            actor: signal.actor,
            correlationId: signal.correlationId,
            paused,
            sequence: pauseSequence,
          });
          setStatus(paused ? 'Paused' : status.step >= 0 ? 'Canary' : 'Deploying');
        }
        continue;
      }
      return signal;
    }
    return null;
  };
  const operatorEnd = async (signal: RolloutSignal) => {
    const reason = signal.reason ?? `${signal.action} by ${signal.actor}`;
    if (signal.action === 'abort') return endWithout('Aborted', 'operator', reason);
    return endWithout('RolledBack', 'operator', reason);
  };

  // Wait for the canary to report Ready (operator signals still act meanwhile).
  const readyDeadline = Date.now() + CANARY_READY_TIMEOUT_MS;
  for (;;) {
    const signal = await takeSignals();
    if (signal && signal.action !== 'promote') return operatorEnd(signal);
    let observed: { state: string };
    try {
      observed = await steps.observeDeployment({
        deploymentId: input.canaryDeploymentId,
        actor: input.actor,
        correlationId: input.correlationId,
      });
    } catch (error) {
      // The child writes the deployment row in its first activity; until then there is nothing to observe.
      const notYet =
        error instanceof ActivityFailure &&
        error.cause instanceof ApplicationFailure &&
        error.cause.type === 'NOT_FOUND';
      if (!notYet) throw error;
      observed = { state: 'Pending' };
    }
    if (observed.state === 'Ready' && !paused) break;
    if (Date.now() >= readyDeadline) {
      return endWithout(
        'Failed',
        'canary-not-ready',
        `canary deployment not Ready after ${CANARY_READY_TIMEOUT_MS / 1000} s (${observed.state})`,
      );
    }
    if (canaryBySignal) {
      // A report that came while the state was being read wakes this at once: nothing is missed.
      await condition(() => pending.length > 0 || canaryReports !== canarySeen, CANARY_FALLBACK_MS);
      canarySeen = canaryReports;
    } else {
      await condition(() => pending.length > 0, READY_POLL_MS);
    }
  }

  let promoteTrigger: 'analysis' | 'operator' = 'analysis';
  // An alias's first rollout has no stable version to compare with: it is promoted once Ready.
  if (baseRevision > 0) {
    steps: for (let step = 0; step < input.plan.steps.length; step++) {
      const weight = (await steps.setCanaryWeight({ ...base, step })).weight;
      setStatus(paused ? 'Paused' : 'Canary', step, weight);
      for (let window = 1; ; window++) {
        const windowEnds = Date.now() + input.plan.analysisWindowSeconds * 1000;
        // Sleep out the window; operator signals wake it, and a pause holds it.
        for (;;) {
          const signal = await takeSignals();
          if (signal?.action === 'promote') {
            promoteTrigger = 'operator';
            break steps;
          }
          if (signal) return operatorEnd(signal);
          const remaining = windowEnds - Date.now();
          if (remaining <= 0 && !paused) break;
          await condition(() => pending.length > 0, paused ? 60_000 : Math.max(remaining, 1));
        }
        const final = window >= input.plan.maxWindowsPerStep;
        const analysis = await steps.analyzeStep({ ...base, step, window, final });
        analyses.push(analysis);
        setStatus(status.state, step, weight);
        if (analysis.verdict === 'pass') break;
        if (analysis.verdict === 'breach') {
          return endWithout(
            'RolledBack',
            'analysis',
            `step ${step} (${weight} %): ${analysis.reasons.join('; ')}`,
          );
        }
        if (final) {
          return endWithout(
            'RolledBack',
            'insufficient-traffic',
            `step ${step} (${weight} %): ${analysis.reasons.join('; ')}`,
          );
        }
      }
    }
  }

  const promoted = await steps.promoteRollout({ ...base, trigger: promoteTrigger });
  setStatus('Promoted', status.step, 100);
  if (input.plan.bakeSeconds > 0) {
    baking = true;
    setStatus('Promoted', status.step, 100);
    const bakeEnds = Date.now() + input.plan.bakeSeconds * 1000;
    for (;;) {
      const signal = await takeSignals();
      if (signal && (signal.action === 'rollback' || signal.action === 'abort')) {
        return endWithout(
          'RolledBack',
          'operator',
          signal.reason ?? `rollback by ${signal.actor} after promotion`,
        );
      }
      const remaining = bakeEnds - Date.now();
      if (remaining <= 0) break;
      await condition(() => pending.length > 0, remaining);
    }
  }
  baking = false;
  setStatus('Promoted', status.step, 100);
  await stopDeployment(promoted.previousDeploymentId);
  const done = await steps.finishPromotion({ ...base, stoppedDeploymentId: promoted.previousDeploymentId });
  return finish('Promoted', done.hash, promoted.revision);
}
