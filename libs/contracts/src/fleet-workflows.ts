/**
 * Workflow contracts of the node lifecycle and the deployment slice: inputs,
 * results, signal and query names. Plain types (no zod): the API builds them
 * from validated GraphQL input, and workflows must stay free of validation
 * libraries. Ids: `enroll-node/<nodeId>`, `rotate-node-credential/<nodeId>/<key>`,
 * `drain-node/<nodeId>/<key>`, `deployment/<deploymentId>`.
 */

import type { DeploymentPurpose, PlacementStrategy } from './deployment';

/** Who asked, and the correlation id every receipt of the operation carries. */
export interface OperationContext {
  readonly actor: string;
  readonly correlationId: string;
  readonly requestId: string;
}

export interface EnrollNodeWorkflowInput extends OperationContext {
  readonly nodeId: string;
  /** From the bootstrap token: approve without waiting for an operator. */
  readonly autoApprove: boolean;
  /** How long a Pending node waits for approval before it is Rejected. */
  readonly approvalTimeoutSeconds: number;
}

export type EnrollmentPhase =
  'AwaitingApproval' | 'IssuingCredential' | 'CheckingReachability' | 'Active' | 'Rejected' | 'Failed';

export interface EnrollNodeWorkflowResult {
  readonly nodeId: string;
  readonly phase: Extract<EnrollmentPhase, 'Active' | 'Rejected'>;
  readonly approvedBy: string | null;
  readonly credentialSerial: number | null;
  readonly receiptHash: string;
}

export interface ApproveNodeSignal {
  readonly actor: string;
  readonly correlationId: string;
  readonly requestId: string;
}

export interface RejectNodeSignal extends ApproveNodeSignal {
  readonly reason: string;
}

export const ENROLL_NODE_SIGNALS = { approve: 'approveNode', reject: 'rejectNode' } as const;
export const ENROLL_NODE_QUERIES = { phase: 'enrollmentPhase' } as const;

export interface RotateNodeCredentialWorkflowInput extends OperationContext {
  readonly nodeId: string;
  /** How long to wait for the agent to present its next key (it does so on its next heartbeats). */
  readonly timeoutSeconds: number;
}

export interface RotateNodeCredentialWorkflowResult {
  readonly nodeId: string;
  readonly previousKeyId: string;
  readonly keyId: string;
  readonly credentialSerial: number;
  readonly receiptHash: string;
}

export interface DrainNodeWorkflowInput extends OperationContext {
  readonly nodeId: string;
  /** Bound on waiting for in-flight requests; replicas are stopped when it passes. */
  readonly timeoutSeconds: number;
  /** Set when the operator forced a drain that strands replicas; the start receipt records it. */
  readonly forced?: DrainOverrideRecord;
}

export interface DrainOverrideRecord {
  readonly reason: string;
  /** Deployments whose replica on the node had nowhere else to go when the drain was asked for. */
  readonly strandedDeployments: readonly string[];
}

export interface DrainNodeWorkflowResult {
  readonly nodeId: string;
  readonly state: 'Drained';
  readonly replicasAtStart: number;
  readonly inFlightAtStart: number;
  /** In-flight requests still running when the timeout cut them off (0 when they all finished). */
  readonly inFlightAtTimeout: number;
  readonly stoppedAssignments: number;
  readonly receiptHash: string;
}

/** The one standing loop that finds nodes whose lease expired past the grace period; its fixed id. */
export const NODE_LEASE_WATCH_WORKFLOW_ID = 'nodeLeaseWatch/watch-loop';

export interface NodeLeaseWatchWorkflowInput extends OperationContext {
  /** A node is lost once its lease has been expired this long (it may only be slow). */
  readonly graceSeconds: number;
  readonly intervalSeconds: number;
  /** Passes so far across continue-as-new; with maxPasses, lets a test run a bounded loop. */
  readonly passesSoFar?: number;
  readonly maxPasses?: number;
  /** How long a recovery waits for the replacements to be Ready before it writes its receipt anyway. */
  readonly replacementTimeoutSeconds: number;
  /** Suspected nodes carried across continue-as-new (node id → first seen silent, ISO). */
  readonly suspects?: Readonly<Record<string, string>>;
}

export interface NodeLeaseWatchWorkflowResult {
  readonly passes: number;
  /** Recovery workflow ids this run started (ones already started by an earlier pass are not repeated). */
  readonly recoveries: readonly string[];
}

export interface NodeRecoveryWorkflowInput extends OperationContext {
  readonly nodeId: string;
  /** The expired lease this recovery is about (part of its workflow id: one recovery per loss). */
  readonly leaseExpiredAt: string;
  readonly replacementTimeoutSeconds: number;
}

export interface NodeRecoveryWorkflowResult {
  readonly nodeId: string;
  readonly lostAssignments: readonly string[];
  readonly deployments: readonly string[];
  /** Every affected deployment has its desired replicas Ready on other nodes. */
  readonly replaced: boolean;
  readonly secondsToReplaced: number | null;
  readonly receiptHash: string;
}

export interface CreateDeploymentRequest {
  readonly deploymentId: string;
  readonly name: string;
  readonly modelVersionId: string;
  readonly modelRef: string;
  readonly desiredReplicas: number;
  readonly requestedNodeId: string | null;
  /**
   * Which deploy gate the request passed (DeploymentPurpose). Absent in histories written before the
   * API passed it: those were Candidates.
   */
  readonly purpose?: DeploymentPurpose;
  readonly rolloutId?: string | null;
  /** How the scheduler ranks nodes for this deployment; absent in older histories: Spread. */
  readonly placementStrategy?: PlacementStrategy;
}

export interface DeploymentWorkflowInput extends OperationContext {
  readonly request: CreateDeploymentRequest;
  /** Assignment lease length; the workflow renews at a third of it. */
  readonly leaseSeconds: number;
  /** Iterations so far across continue-as-new (bounds history). */
  readonly iteration?: number;
}

export interface StopDeploymentSignal {
  readonly actor: string;
  readonly correlationId: string;
  readonly requestId: string;
}

export interface EvacuateNodeSignal {
  readonly nodeId: string;
  readonly actor: string;
  readonly correlationId: string;
  /**
   * Move the replica only if a replacement can be placed; otherwise leave it serving where it is (healing moving
   * replicas off a node with a faulty GPU). Without it (a drain, a lost node) the replica is stopped either way.
   */
  readonly onlyIfReplaced?: boolean;
}

export const DEPLOYMENT_SIGNALS = {
  stop: 'stopDeployment',
  evacuateNode: 'evacuateNode',
  restartReplica: 'restartReplica',
  /** The agent channel recorded a changed replica observation of this deployment (no payload: the rows say what). */
  replicaObserved: 'replicaObserved',
} as const;
export const DEPLOYMENT_QUERIES = { status: 'deploymentStatus' } as const;
/** Updates answer once the workflow has recorded what they ask for (the api returns that instead of polling rows). */
export const DEPLOYMENT_UPDATES = {
  /** Answers once the deployment row is written: update-with-start of createDeployment. */
  recorded: 'deploymentRecorded',
  /** Stop (StopDeploymentSignal as argument); answers once the replicas are stopped and the receipt written. */
  stop: 'stopDeploymentUpdate',
} as const;

export const ROLLOUT_SIGNALS = {
  operator: 'rolloutOperatorSignal',
  /** The canary deployment's workflow observed a new state of the canary (payload: CanaryObservedSignal). */
  canaryObserved: 'canaryObserved',
} as const;

export interface CanaryObservedSignal {
  readonly deploymentId: string;
  readonly state: string;
}
export const ROLLOUT_QUERIES = { status: 'rolloutStatus' } as const;
/** Answers once the evaluation run is recorded; a refusal fails the update with its typed code. */
export const EVALUATION_UPDATES = { begun: 'evaluationBegun' } as const;
/** Approve or reject (EnrollNodeDecision as argument); answers with the phase once the decision is recorded. */
export const ENROLL_NODE_UPDATES = { approve: 'approveNodeUpdate', reject: 'rejectNodeUpdate' } as const;
export const ROLLOUT_UPDATES = {
  /** Answers once the rollout is past verification (refused, or deploying its canary): update-with-start. */
  started: 'rolloutStarted',
  /** An operator action (RolloutSignal as argument); answers once the workflow has acted on it. */
  operatorAction: 'rolloutOperatorAction',
} as const;

export interface DeploymentWorkflowStatus {
  readonly deploymentId: string;
  readonly state: string;
  readonly generation: number;
  readonly readyReplicas: number;
  readonly stopping: boolean;
}

export interface DeploymentWorkflowResult {
  readonly deploymentId: string;
  readonly state: 'Stopped' | 'Failed';
  readonly receiptHash: string;
}

/** Default lease of an assignment; the deployment workflow renews it at a third. */
export const DEFAULT_ASSIGNMENT_LEASE_SECONDS = 600;

/** The controller key a rotation brings in: public parts only (its private half is a file on the controller hosts). */
export interface ControllerKeyPublicParts {
  /** base64url(sha256(raw key)): the session token `kid` and the ring file's name. */
  readonly fingerprint: string;
  readonly publicKeyPem: string;
  readonly keyId: string;
  readonly sshFingerprint: string;
  /** `ssh-ed25519 …`. */
  readonly publicKey: string;
}

/** One workflow id: a second rotation while one runs is refused by Temporal as well as by the ring. */
export const CONTROLLER_KEY_ROTATION_WORKFLOW_ID = 'rotate-controller-key';

export interface RotateControllerKeyWorkflowInput extends OperationContext {
  readonly rotationId: string;
  readonly nextKey: ControllerKeyPublicParts;
  readonly announceSeconds: number;
  readonly overlapSeconds: number;
  readonly reason: string;
}

export type ControllerKeyRotationPhase = 'announcing' | 'overlap' | 'retired';

export interface ControllerKeyRotationStatus {
  readonly rotationId: string;
  readonly phase: ControllerKeyRotationPhase;
  readonly nextKeyId: string;
  readonly previousKeyId: string | null;
  /** When the switch is due (announcing) or happened. */
  readonly switchAt: string | null;
  /** When the previous key is retired (overlap) or was. */
  readonly retireAt: string | null;
}

export interface RotateControllerKeyWorkflowResult {
  readonly rotationId: string;
  readonly previousKeyId: string;
  readonly keyId: string;
  /** Nodes that still trusted only the previous key when it was retired: they are told how to recover. */
  readonly nodesNotTrustingNewKey: readonly string[];
  readonly receiptHash: string;
}

export const CONTROLLER_KEY_ROTATION_QUERIES = { status: 'controllerKeyRotationStatus' } as const;
