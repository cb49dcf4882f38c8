import { proxyActivities } from '@temporalio/workflow';
import type {
  ReconcileAppliedRepair,
  ReconcileWorkflowInput,
  ReconcileWorkflowResult,
} from '@lunanexa/contracts';
import { RECONCILE_DRY_RUN_OUTCOME } from '@lunanexa/contracts/dist/src/workflow-constants';
import type { Activities } from '@lunanexa/activities';

const steps = proxyActivities<Activities>({
  startToCloseTimeout: '60 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds', maximumAttempts: 20 },
});

/**
 * Reconcile: one pass over desired (PostgreSQL) against running (Temporal's
 * deployment workflows, the agents' reports) — libs/domain planReconcile
 * through the planReconcilePass activity — then its repairs in order:
 * generations the nodes are ahead of are moved past them (each receipted),
 * deployments without a running workflow get it back (the workflow, the
 * only writer of its replicas, then places, pushes and renews), running
 * deployments whose replicas are not reported get their assignments pushed.
 * One `fleet.reconcile` receipt lists the drift and each repair's outcome.
 * A dry run stops after the plan: no repair, no write, no receipt.
 */
export async function reconcileFleetWorkflow(
  input: ReconcileWorkflowInput,
): Promise<ReconcileWorkflowResult> {
  const plan = await steps.planReconcilePass();
  if (input.dryRun) {
    return {
      dryRun: true,
      inSync: plan.inSync,
      drift: plan.drift,
      repairs: plan.repairs.map((repair) => ({ ...repair, outcome: RECONCILE_DRY_RUN_OUTCOME })),
      receiptHash: null,
      receiptSeq: null,
    };
  }
  const repairs: ReconcileAppliedRepair[] = [];
  for (const repair of plan.repairs) {
    let outcome: string;
    try {
      if (repair.kind === 'AdvanceGeneration') {
        ({ outcome } = await steps.advanceReplicaGeneration({
          repair,
          actor: input.actor,
          correlationId: input.correlationId,
        }));
      } else if (repair.kind === 'ResumeDeploymentWorkflow') {
        ({ outcome } = await steps.resumeDeploymentWorkflow({
          deploymentId: repair.deploymentId,
          stop: repair.stop,
          leaseSeconds: input.leaseSeconds,
          actor: input.actor,
          correlationId: input.correlationId,
          requestId: input.requestId,
        }));
      } else {
        const pushed = await steps.pushDeploymentAssignments({
          deploymentId: repair.deploymentId,
          leaseSeconds: input.leaseSeconds,
        });
        outcome =
          pushed.unreachable.length === 0
            ? 'applied'
            : `applied; unreachable: ${pushed.unreachable.join(', ')} (pushed again at the next lease renewal)`;
      }
    } catch (error) {
      // One repair that cannot be made (a deployment gone meanwhile, a node refusing) does not stop the others.
      outcome = `not applied: ${error instanceof Error ? error.message : String(error)}`;
    }
    repairs.push({ ...repair, outcome });
  }
  const receipt = await steps.recordReconcile({
    drift: plan.drift,
    repairs,
    actor: input.actor,
    correlationId: input.correlationId,
  });
  return {
    dryRun: false,
    inSync: plan.inSync,
    drift: plan.drift,
    repairs,
    receiptHash: receipt.hash,
    receiptSeq: receipt.seq,
  };
}
