import type { EvaluationRunState } from '@lunanexa/contracts/evaluation';
import type {
  DeploymentState,
  LicenseApprovalState,
  ModelVersionState,
  ReplicaState,
  WorkloadState,
} from '@lunanexa/contracts/lifecycle';
import type { RolloutState } from '@lunanexa/contracts/rollout';
import type { GatewayKeyState } from '@lunanexa/contracts/tenancy-rules';

export type StatusTone = 'ok' | 'warn' | 'error' | 'neutral';

/*
 * Deployment and replica states that are not neutral. Keyed by the contract
 * types (DEPLOYMENT_STATES, REPLICA_STATES; type-only, so no zod in the
 * bundle): a state renamed there fails the build here instead of turning grey.
 * States in progress (Pending, Placing, Starting, Stopping, …) stay neutral.
 */
const DEPLOYMENT_TONES = {
  Ready: 'ok',
  Degraded: 'warn',
  Failed: 'error',
} as const satisfies Partial<Record<DeploymentState, StatusTone>>;

const REPLICA_TONES = {
  Ready: 'ok',
  Unhealthy: 'warn',
  Failed: 'error',
  Lost: 'error',
} as const satisfies Partial<Record<ReplicaState, StatusTone>>;

/** How an inference request ended (RequestRecord.outcome): a caller's cancel is theirs, not a fault. */
const REQUEST_OUTCOME_TONES = {
  Completed: 'ok',
  Cancelled: 'warn',
  Rejected: 'error',
  Failed: 'error',
  TimedOut: 'error',
} as const satisfies Partial<Record<WorkloadState, StatusTone>>;

/** A version's lifecycle: what may roll out is ok, a failed check an error, a version on its way out a warning. */
const MODEL_VERSION_TONES = {
  Verified: 'ok',
  Evaluated: 'ok',
  Approved: 'ok',
  VerificationFailed: 'error',
  EvaluationFailed: 'error',
  Deprecated: 'warn',
} as const satisfies Partial<Record<ModelVersionState, StatusTone>>;

const LICENSE_TONES = {
  Approved: 'ok',
  PendingReview: 'warn',
  Rejected: 'error',
} as const satisfies Partial<Record<LicenseApprovalState, StatusTone>>;

/** A rollout that ended without promoting is a warning when someone chose it, an error when the system refused or broke. */
const ROLLOUT_TONES = {
  Paused: 'warn',
  Promoted: 'ok',
  RolledBack: 'warn',
  Aborted: 'warn',
  Refused: 'error',
  Failed: 'error',
} as const satisfies Partial<Record<RolloutState, StatusTone>>;

const EVALUATION_RUN_TONES = {
  Passed: 'ok',
  Failed: 'error',
  Errored: 'error',
} as const satisfies Partial<Record<EvaluationRunState, StatusTone>>;

/** Whether the gateway accepts a tenant's key now; a revocation is a decision, not a fault, so it stays neutral. */
const GATEWAY_KEY_TONES = {
  Active: 'ok',
  Expired: 'warn',
  Revoked: 'neutral',
} as const satisfies Record<GatewayKeyState, StatusTone>;

/*
 * Schema v1 types health statuses as plain strings; these are the words the
 * API documents in apps/api/schema.gql (Health: ok | degraded, DependencyCheck:
 * ok | failing). Anything else is shown as sent, in a neutral colour, rather
 * than guessed at. When the contract turns them into an enum, map it
 * exhaustively here.
 */
const TONE_BY_STATUS: Readonly<Record<string, StatusTone>> = {
  // Deployments (Deployment.state) and their replicas (Assignment.observedState); first, so a word
  // below that another vocabulary shares (Ready) is visibly the one that counts.
  ...DEPLOYMENT_TONES,
  ...REPLICA_TONES,
  ...REQUEST_OUTCOME_TONES,
  ...MODEL_VERSION_TONES,
  ...LICENSE_TONES,
  ...ROLLOUT_TONES,
  ...EVALUATION_RUN_TONES,
  ...GATEWAY_KEY_TONES,
  ok: 'ok',
  degraded: 'warn',
  failing: 'error',
  // Node readiness (FleetNode.readiness, NODE_READINESS in libs/contracts).
  Ready: 'ok',
  NotReady: 'warn',
  Unreachable: 'error',
  // Audit decisions and hash-chain checks (pages/audit).
  allowed: 'ok',
  denied: 'error',
  valid: 'ok',
  verified: 'ok',
  broken: 'error',
};

export function statusTone(status: string): StatusTone {
  return TONE_BY_STATUS[status] ?? 'neutral';
}
