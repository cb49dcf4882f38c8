import { advanceAssignmentGeneration, findDeployment, loadReconcileRows } from '@lunanexa/persistence';
import { planReconcile } from '@lunanexa/domain';
import {
  ErrorCode,
  LunaNexaError,
  reconcileRepairMade,
  type DeploymentWorkflowInput,
  type ReconcileAppliedRepair,
  type ReconcileDriftRecord,
  type ReconcileRepairRecord,
  type StopDeploymentSignal,
} from '@lunanexa/contracts';
import type { DataSource } from 'typeorm';
import type { Clock } from '../clock';
import { currentWorkflowId, receiptedTransaction, receiptOnce, typed, type Receipt } from '../fleet-support';

/** What Reconcile needs of Temporal: which workflows run, and starting a deployment's again. */
export interface FleetWorkflowsPort {
  /** Temporal has an open run under this id. */
  isRunning(workflowId: string): Promise<boolean>;
  /**
   * Starts the deployment workflow under its id unless a run is open; with
   * `stop`, delivers the stop with the start (signal-with-start).
   */
  resumeDeployment(
    workflowId: string,
    input: DeploymentWorkflowInput,
    stop: StopDeploymentSignal | null,
  ): Promise<'started' | 'already running'>;
}

export interface ReconcileActivityPorts {
  readonly db: DataSource;
  readonly clock: Clock;
  /** Absent where no Temporal client is wired: the steps that need it fail with INTERNAL (not retried). */
  readonly workflows?: FleetWorkflowsPort;
}

/**
 * Reconcile's steps: load the desired state and the nodes' reports, ask
 * Temporal which deployment workflows run, call libs/domain planReconcile;
 * apply a repair (a generation moved with its receipt, a workflow resumed);
 * write the pass's `fleet.reconcile` receipt. Idempotent by the pass's
 * workflow id and each repair's target.
 */
export function createReconcileActivities({ db, clock, workflows }: ReconcileActivityPorts) {
  const temporal = (): FleetWorkflowsPort => {
    // A wiring mistake, not an outage: fail the pass at once instead of retrying it.
    if (!workflows)
      throw new LunaNexaError(ErrorCode.INTERNAL, 'this worker has no Temporal client for Reconcile');
    return workflows;
  };

  return {
    /** The drift now and the repairs for it. Changes nothing. */
    async planReconcilePass(): Promise<{
      drift: ReconcileDriftRecord[];
      repairs: ReconcileRepairRecord[];
      inSync: boolean;
    }> {
      return typed(async () => {
        const rows = await loadReconcileRows(db);
        const client = temporal();
        const deployments = [];
        for (const deployment of rows.deployments)
          deployments.push({ ...deployment, workflowRunning: await client.isRunning(deployment.workflowId) });
        return planReconcile({ ...rows, deployments }, clock.now());
      });
    },

    /** AdvanceGeneration: compare-and-set of the replica's generation, receipted (`assignment.generation-advanced`). */
    async advanceReplicaGeneration(input: {
      readonly repair: ReconcileRepairRecord;
      readonly actor: string;
      readonly correlationId: string;
    }): Promise<{ outcome: string }> {
      return typed(async () => {
        const { repair } = input;
        if (
          repair.kind !== 'AdvanceGeneration' ||
          repair.fromGeneration === null ||
          repair.toGeneration === null
        )
          throw new LunaNexaError(ErrorCode.VALIDATION_FAILED, `${repair.kind} is not a generation advance`);
        const result = await receiptedTransaction(db, async (manager) => {
          const now = clock.now();
          const moved = await advanceAssignmentGeneration(manager, {
            assignmentId: repair.target,
            from: repair.fromGeneration as number,
            to: repair.toGeneration as number,
            at: now,
          });
          const receipt = await receiptOnce(manager, currentWorkflowId(), {
            actor: input.actor,
            action: 'assignment.generation-advanced',
            step: `${repair.target}/${repair.fromGeneration}-${repair.toGeneration}`,
            evidence: {
              assignmentId: repair.target,
              deploymentId: repair.deploymentId,
              fromGeneration: repair.fromGeneration,
              toGeneration: repair.toGeneration,
              reason: repair.reason,
              moved,
            },
            correlationId: input.correlationId,
            occurredAt: now,
          });
          return { moved, receipt };
        });
        return { outcome: result.moved ? 'applied' : 'already done' };
      });
    },

    /** ResumeDeploymentWorkflow: the deployment's own workflow again, past its first record (it exists). */
    async resumeDeploymentWorkflow(input: {
      readonly deploymentId: string;
      readonly stop: boolean;
      readonly leaseSeconds: number;
      readonly actor: string;
      readonly correlationId: string;
      readonly requestId: string;
    }): Promise<{ outcome: string }> {
      return typed(async () => {
        const deployment = await findDeployment(db, input.deploymentId);
        if (!deployment)
          throw new LunaNexaError(ErrorCode.NOT_FOUND, `deployment ${input.deploymentId} does not exist`);
        const workflowInput: DeploymentWorkflowInput = {
          request: {
            deploymentId: deployment.id,
            name: deployment.name,
            modelVersionId: deployment.modelVersionId,
            modelRef: deployment.modelRef,
            desiredReplicas: deployment.desiredReplicas,
            requestedNodeId: deployment.requestedNodeId,
            purpose: deployment.purpose,
            rolloutId: deployment.rolloutId,
            placementStrategy: deployment.placementStrategy,
          },
          leaseSeconds: input.leaseSeconds,
          // Past the first iteration: the record exists, and creating it again would be refused as a clash.
          iteration: 1,
          actor: input.actor,
          correlationId: input.correlationId,
          requestId: input.requestId,
        };
        const stop: StopDeploymentSignal | null = input.stop
          ? { actor: input.actor, correlationId: input.correlationId, requestId: input.requestId }
          : null;
        const outcome = await temporal().resumeDeployment(deployment.workflowId, workflowInput, stop);
        return { outcome: outcome === 'started' ? 'applied' : 'already done' };
      });
    },

    /** The pass's receipt: every drift found and every repair with its outcome. */
    async recordReconcile(input: {
      readonly drift: readonly ReconcileDriftRecord[];
      readonly repairs: readonly ReconcileAppliedRepair[];
      readonly actor: string;
      readonly correlationId: string;
    }): Promise<Receipt> {
      return typed(() =>
        receiptedTransaction(db, async (manager) =>
          receiptOnce(manager, currentWorkflowId(), {
            actor: input.actor,
            action: 'fleet.reconcile',
            step: 'pass',
            evidence: {
              inSync: input.drift.length === 0,
              drift: input.drift.map((drift) => ({ ...drift })),
              repairs: input.repairs.map((repair) => ({ ...repair })),
            },
            correlationId: input.correlationId,
            result: input.repairs.every((repair) => reconcileRepairMade(repair.outcome))
              ? 'succeeded'
              : 'failed',
            occurredAt: clock.now(),
          }),
        ),
      );
    },
  };
}

export type ReconcileActivities = ReturnType<typeof createReconcileActivities>;
