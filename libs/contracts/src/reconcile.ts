import type { OperationContext } from './fleet-workflows';

/**
 * Reconcile: desired state (PostgreSQL) against what runs (Temporal's
 * deployment workflows, the agents' heartbeat reports), the drift one pass
 * finds (libs/domain planReconcile) and the repairs it takes. The first
 * thing to run after a restore; safe to run any time. The API, CLI, worker
 * and workflows share this vocabulary.
 */

export const RECONCILE_DRIFT_KINDS = [
  /** A deployment that should be running (not Stopped) has no running deployment workflow. */
  'DeploymentWorkflowMissing',
  /** The node acts on a newer generation of a replica than the desired state holds (the controller was restored from before it). */
  'GenerationBehindNode',
  /** A replica meant to run on a live node is not reported by it, or at an older generation than desired. */
  'ReplicaNotReported',
  /** A live node runs a replica the desired state does not have there (created after the backup, say). */
  'UnknownReplicaOnNode',
] as const;
export type ReconcileDriftKind = (typeof RECONCILE_DRIFT_KINDS)[number];

export const RECONCILE_REPAIR_KINDS = [
  /** Start the deployment's workflow again under its own id (and ask it to stop, for a deployment that was Stopping). */
  'ResumeDeploymentWorkflow',
  /** Move the replica's fence generation past the node's, so the next push is not refused as stale. */
  'AdvanceGeneration',
  /** Push the deployment's signed assignments to its nodes now. */
  'PushAssignments',
] as const;
export type ReconcileRepairKind = (typeof RECONCILE_REPAIR_KINDS)[number];

export interface ReconcileDriftRecord {
  readonly kind: ReconcileDriftKind;
  /** The deployment id (DeploymentWorkflowMissing) or the replica's assignment id. */
  readonly target: string;
  readonly deploymentId: string | null;
  readonly nodeId: string | null;
  /** What the desired state says, in operator words. */
  readonly desired: string;
  /** What was observed instead. */
  readonly observed: string;
  /** The repair this pass takes for it, or null when none is the controller's to take (and `note` says what happens). */
  readonly repair: ReconcileRepairKind | null;
  readonly note: string;
}

export interface ReconcileRepairRecord {
  readonly kind: ReconcileRepairKind;
  /** The deployment id, or the assignment id for AdvanceGeneration. */
  readonly target: string;
  readonly deploymentId: string;
  /** AdvanceGeneration: the generation the desired state holds and the one it moves to. */
  readonly fromGeneration: number | null;
  readonly toGeneration: number | null;
  /** ResumeDeploymentWorkflow of a Stopping deployment: resume it with its stop. */
  readonly stop: boolean;
  readonly reason: string;
}

export interface ReconcileAppliedRepair extends ReconcileRepairRecord {
  /** `applied`, `already done` (a retried or concurrent pass got there first) or why it was not. */
  readonly outcome: string;
}

/** The outcome every repair of a dry run carries. */
export const RECONCILE_DRY_RUN_OUTCOME = 'not applied: dry run';

/**
 * A repair whose drift is gone: `applied` (perhaps with nodes that were
 * unreachable, pushed again at the next renewal) or `already done`. The
 * pass's receipt and the CLI's exit status both read it.
 */
export function reconcileRepairMade(outcome: string): boolean {
  return outcome.startsWith('applied') || outcome === 'already done';
}

export interface ReconcileWorkflowInput extends OperationContext {
  /** Only find the drift: no repair, no write, no receipt. */
  readonly dryRun: boolean;
  /** The assignment lease a resumed deployment workflow renews (the API's LUNANEXA_ASSIGNMENT_LEASE_SECONDS). */
  readonly leaseSeconds: number;
}

export interface ReconcileWorkflowResult {
  readonly dryRun: boolean;
  /** No drift was found. */
  readonly inSync: boolean;
  readonly drift: readonly ReconcileDriftRecord[];
  readonly repairs: readonly ReconcileAppliedRepair[];
  /** The `fleet.reconcile` receipt; null for a dry run. */
  readonly receiptHash: string | null;
  readonly receiptSeq: number | null;
}
