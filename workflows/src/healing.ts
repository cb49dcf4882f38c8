import {
  continueAsNew,
  executeChild,
  getExternalWorkflowHandle,
  patched,
  proxyActivities,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type {
  EvacuateNodeSignal,
  HealingAppliedAction,
  HealingLoopWorkflowInput,
  HealingLoopWorkflowResult,
  HealingWorkflowInput,
  HealingWorkflowResult,
  RestartReplicaSignal,
} from '@lunanexa/contracts';
import { DEPLOYMENT_SIGNALS } from '@lunanexa/contracts/dist/src/workflow-constants';
import type { Activities } from '@lunanexa/activities';

const steps = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds', maximumAttempts: 20 },
});

/** Histories recorded before a GPU-unhealthy cordon also moved the node's replicas replay without the move. */
const MOVE_OFF_FAULTY_GPU = 'healing-moves-replicas-off-faulty-gpu';

/** Passes per run before continue-as-new, so the loop's history stays small. */
const PASSES_PER_RUN = 200;

/**
 * Healing: one pass of the healing rules (libs/domain planHealing, through
 * the planHealingPass activity) and the bounded actions it chose, each
 * applied through the mechanism that already owns it — a restart or a
 * re-placement is handed to the deployment's own workflow (the only writer
 * of its desired state) by signal; a cordon is the operator's cordon — and
 * each recorded with a `healing.action` receipt naming the rule, the
 * evidence and this workflow. The dry run is not this workflow: the API's
 * healingPlan query runs the same load and decision and writes nothing.
 */
export async function healingWorkflow(input: HealingWorkflowInput): Promise<HealingWorkflowResult> {
  const plan = await steps.planHealingPass({ settings: input.settings });
  const applied: HealingAppliedAction[] = [];
  for (const action of plan.actions) {
    let outcome = 'applied';
    if (action.kind !== 'CordonNode' && action.deploymentId !== null) {
      const handle = getExternalWorkflowHandle(`deployment/${action.deploymentId}`);
      try {
        if (action.kind === 'RestartReplica') {
          const signal: RestartReplicaSignal = {
            assignmentId: action.target,
            nodeId: action.nodeId,
            actor: input.actor,
            correlationId: input.correlationId,
          };
          await handle.signal(DEPLOYMENT_SIGNALS.restartReplica, signal);
        } else {
          const signal: EvacuateNodeSignal = {
            nodeId: action.nodeId,
            actor: input.actor,
            correlationId: input.correlationId,
          };
          await handle.signal(DEPLOYMENT_SIGNALS.evacuateNode, signal);
        }
      } catch {
        outcome = 'not applied: the deployment workflow is not running';
      }
    }
    const receipt = await steps.recordHealingAction({
      action,
      outcome,
      actor: input.actor,
      correlationId: input.correlationId,
    });
    applied.push({ ...action, outcome, receiptHash: receipt.hash });
    if (action.rule === 'cordon-gpu-unhealthy-node' && patched(MOVE_OFF_FAULTY_GPU)) {
      await moveReplicasOff(action.nodeId, input.actor, input.correlationId);
    }
  }
  return { actions: applied, skipped: plan.skipped };
}

/**
 * A faulty GPU's node, once cordoned, hands each replica there to its deployment's workflow to move
 * make-before-break (replacement Ready first, then the old one drains and stops). A replica with nowhere to go
 * stays where it is: a degraded GPU that still answers beats no replica at all.
 */
async function moveReplicasOff(nodeId: string, actor: string, correlationId: string): Promise<void> {
  const workload = await steps.nodeWorkload({ nodeId });
  for (const deploymentId of workload.runningDeploymentIds) {
    const signal: EvacuateNodeSignal = { nodeId, actor, correlationId, onlyIfReplaced: true };
    try {
      await getExternalWorkflowHandle(`deployment/${deploymentId}`).signal(
        DEPLOYMENT_SIGNALS.evacuateNode,
        signal,
      );
    } catch {
      // The deployment is being torn down: nothing to move.
    }
  }
}

/**
 * HealingLoop: the standing loop (fixed id, started by every worker with
 * USE_EXISTING) that runs one Healing pass per interval as a child
 * workflow, so each pass has its own id in every receipt it writes.
 */
export async function healingLoopWorkflow(
  input: HealingLoopWorkflowInput,
): Promise<HealingLoopWorkflowResult> {
  let passes = 0;
  let actions = 0;
  for (;;) {
    const total = (input.passesSoFar ?? 0) + passes;
    // A failed pass (PostgreSQL away past the activity retries) is not the loop's end: the next interval tries again.
    const result = await executeChild(healingWorkflow, {
      workflowId: `healingPass/${workflowInfo().runId}/${passes}`,
      args: [
        {
          settings: input.settings,
          actor: input.actor,
          correlationId: input.correlationId,
          requestId: `${input.requestId}-${total}`,
        },
      ],
    }).catch(() => null);
    actions += result?.actions.length ?? 0;
    passes += 1;
    if (input.maxPasses !== undefined && total + 1 >= input.maxPasses) return { passes: total + 1, actions };
    await sleep(input.intervalSeconds * 1000);
    if (passes >= PASSES_PER_RUN || workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof healingLoopWorkflow>({ ...input, passesSoFar: total + 1 });
    }
  }
}
