import { z } from 'zod';

/**
 * The one vocabulary of lifecycle state names. The API, workflows, the
 * console, the CLI and the database all read these lists; the allowed
 * transitions between them live in `@lunanexa/domain`. Adding a state is a
 * compatible change only for consumers documented to tolerate unknown values
 * (see docs/CONTRACTS.md); renaming or removing one is breaking.
 */

/**
 * Administrative lifecycle of an enrolled node. Whether the node is currently
 * reachable is NOT part of this list (see NODE_READINESS), and neither is
 * cordoning (a separate boolean on the node): a node can be Active, cordoned
 * and Unreachable at the same time, and an operator needs to see all three.
 */
export const NODE_LIFECYCLE_STATES = [
  'Pending',
  'Approved',
  'Active',
  'Draining',
  'Drained',
  'Rejected',
  'Revoked',
] as const;
export const NodeLifecycleStateSchema = z.enum(NODE_LIFECYCLE_STATES);
export type NodeLifecycleState = z.infer<typeof NodeLifecycleStateSchema>;

/**
 * Lease-derived readiness, computed by the controller from heartbeats:
 * Ready (lease fresh, agent healthy), NotReady (lease fresh, agent reports a
 * problem), Unreachable (lease expired). Never set by an operator.
 */
export const NODE_READINESS = ['Ready', 'NotReady', 'Unreachable'] as const;
export const NodeReadinessSchema = z.enum(NODE_READINESS);
export type NodeReadiness = z.infer<typeof NodeReadinessSchema>;

/** Lifecycle of one immutable, digest-pinned model version in the registry. */
export const MODEL_VERSION_STATES = [
  'Registered',
  'Verified',
  'VerificationFailed',
  'Evaluating',
  'Evaluated',
  'EvaluationFailed',
  'Approved',
  'Deprecated',
  'Retired',
] as const;
export const ModelVersionStateSchema = z.enum(MODEL_VERSION_STATES);
export type ModelVersionState = z.infer<typeof ModelVersionStateSchema>;

/** Lifecycle of a deployment: a model version served by N replicas on a runtime. */
export const DEPLOYMENT_STATES = [
  'Pending',
  'Placing',
  'Assigned',
  'Starting',
  'Ready',
  'Degraded',
  'Updating',
  'Stopping',
  'Stopped',
  'Failed',
] as const;
export const DeploymentStateSchema = z.enum(DEPLOYMENT_STATES);
export type DeploymentState = z.infer<typeof DeploymentStateSchema>;

/** Lifecycle of one inference request through the gateway. */
export const WORKLOAD_STATES = [
  'Received',
  'Admitted',
  'Rejected',
  'Queued',
  'Dispatched',
  'Streaming',
  'Completed',
  'Failed',
  'Cancelled',
  'TimedOut',
] as const;
export const WorkloadStateSchema = z.enum(WORKLOAD_STATES);
export type WorkloadState = z.infer<typeof WorkloadStateSchema>;

/** Review state of a license: nothing deploys under a license until it is Approved. */
export const LICENSE_APPROVAL_STATES = ['PendingReview', 'Approved', 'Rejected'] as const;
export const LicenseApprovalStateSchema = z.enum(LICENSE_APPROVAL_STATES);
export type LicenseApprovalState = z.infer<typeof LicenseApprovalStateSchema>;

/**
 * Observed state of one replica (one assignment on one node) as the agent
 * reports it in heartbeats. The controller folds these into the deployment
 * state; they are not a lifecycle with operator-driven transitions.
 */
export const REPLICA_STATES = [
  'Pulling',
  'Starting',
  'Ready',
  'Unhealthy',
  'Stopping',
  'Stopped',
  'Failed',
  // Set by the controller, never reported by an agent: the replica's node lost its lease (NodeRecovery).
  'Lost',
] as const;
export const ReplicaStateSchema = z.enum(REPLICA_STATES);
export type ReplicaState = z.infer<typeof ReplicaStateSchema>;

/** State of a runtime process the agent supervises (a replica's process, or an orphan). */
export const RUNTIME_PROCESS_STATES = ['Starting', 'Running', 'Stopping', 'Exited'] as const;
export const RuntimeProcessStateSchema = z.enum(RUNTIME_PROCESS_STATES);
export type RuntimeProcessState = z.infer<typeof RuntimeProcessStateSchema>;
