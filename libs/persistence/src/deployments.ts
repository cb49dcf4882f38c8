import type {
  Assignment,
  AssignmentIntent,
  DeploymentPlacement,
  DeploymentPurpose,
  DeploymentState,
  PlacementStrategy,
} from '@lunanexa/contracts';
import type { Queryable } from './fleet';

/**
 * Writes of the deployment aggregate: the deployment row and its replicas'
 * assignments. Reads live beside the row types in fleet.ts (findDeployment,
 * listAssignments, findAssignment). The deployment activities decide (with
 * libs/domain) and call these; none of them writes SQL of its own.
 */

export interface NewDeployment {
  readonly id: string;
  readonly name: string;
  readonly modelVersionId: string;
  readonly modelRef: string;
  readonly desiredReplicas: number;
  readonly requestedNodeId: string | null;
  readonly workflowId: string;
  readonly createdBy: string;
  readonly createdAt: Date;
  readonly purpose: DeploymentPurpose;
  readonly rolloutId: string | null;
  readonly placementStrategy: PlacementStrategy;
}

/** A deployment as its workflow first records it: Pending at generation 1, nothing observed yet. */
export async function insertDeployment(q: Queryable, deployment: NewDeployment): Promise<void> {
  await q.query(
    `INSERT INTO deployments (id, name, model_version_id, model_ref, state, state_reason, generation,
       observed_generation, desired_replicas, node_selector, requested_node_id, workflow_id, created_by,
       created_at, updated_at, purpose, rollout_id, placement_strategy)
     VALUES ($1, $2, $3, $4, 'Pending', NULL, 1, 0, $5, '{}'::jsonb, $6, $7, $8, $9, $9, $10, $11, $12)`,
    [
      deployment.id,
      deployment.name,
      deployment.modelVersionId,
      deployment.modelRef,
      deployment.desiredReplicas,
      deployment.requestedNodeId,
      deployment.workflowId,
      deployment.createdBy,
      deployment.createdAt,
      deployment.purpose,
      deployment.rolloutId,
      deployment.placementStrategy,
    ],
  );
}

/**
 * The deployment's state and why. The caller has checked the move against
 * the deployment lifecycle (libs/domain `deploymentStateAfter`); a
 * `observedGeneration` records that every replica reported the current one.
 */
export async function writeDeploymentState(
  q: Queryable,
  change: {
    readonly deploymentId: string;
    readonly state: DeploymentState;
    readonly reason: string | null;
    readonly at: Date;
    readonly observedGeneration?: number;
  },
): Promise<void> {
  await q.query(
    `UPDATE deployments SET state = $2, state_reason = $3, updated_at = $4,
            observed_generation = COALESCE($5, observed_generation) WHERE id = $1`,
    [change.deploymentId, change.state, change.reason, change.at, change.observedGeneration ?? null],
  );
}

/** A new desired generation of the deployment: its replicas' next specs carry it. */
export async function advanceDeploymentGeneration(
  q: Queryable,
  deploymentId: string,
  generation: number,
  at: Date,
): Promise<void> {
  await q.query(`UPDATE deployments SET generation = $2, updated_at = $3 WHERE id = $1`, [
    deploymentId,
    generation,
    at,
  ]);
}

/** The scheduler's last decision, shown to operators as chosen and passed-over nodes. */
export async function recordDeploymentPlacement(
  q: Queryable,
  deploymentId: string,
  placement: DeploymentPlacement,
): Promise<void> {
  await q.query(`UPDATE deployments SET placement = $2::jsonb WHERE id = $1`, [
    deploymentId,
    JSON.stringify(placement),
  ]);
}

/** A replica placed on a node for the first time: meant to run at the deployment's generation. */
export async function insertRunAssignment(
  q: Queryable,
  assignment: { readonly spec: Assignment; readonly leaseExpiresAt: Date; readonly at: Date },
): Promise<void> {
  const { spec } = assignment;
  await q.query(
    `INSERT INTO assignments (id, deployment_id, node_id, generation, intent, lease_expires_at, spec,
       created_at, updated_at)
     VALUES ($1, $2, $3, $4, 'Run', $5, $6::jsonb, $7, $7)`,
    [
      spec.id,
      spec.deploymentId,
      spec.nodeId,
      spec.generation,
      assignment.leaseExpiresAt,
      JSON.stringify(spec),
      assignment.at,
    ],
  );
}

/** A replica's new intent (run again, or stop) at a new generation, with the spec the next push signs. */
export async function reassignReplica(
  q: Queryable,
  assignment: { readonly spec: Assignment; readonly leaseExpiresAt: Date; readonly at: Date },
): Promise<void> {
  const { spec } = assignment;
  const intent: AssignmentIntent = spec.intent;
  await q.query(
    `UPDATE assignments SET intent = $2, generation = $3, spec = $4::jsonb, lease_expires_at = $5,
            updated_at = $6 WHERE id = $1`,
    [spec.id, intent, spec.generation, JSON.stringify(spec), assignment.leaseExpiresAt, assignment.at],
  );
}

/**
 * The agent holds the pushed spec and its lease. Recorded only once the
 * agent acknowledged, so the row never claims a lease the node does not
 * have; a generation that moved on meanwhile is left for the next push.
 */
export async function recordAssignmentPushed(
  q: Queryable,
  push: {
    readonly spec: Assignment;
    readonly leaseExpiresAt: Date;
    readonly ackedGeneration: number;
    readonly at: Date;
  },
): Promise<void> {
  await q.query(
    `UPDATE assignments SET spec = $2::jsonb, lease_expires_at = $3, updated_at = $4,
            acked_generation = GREATEST(COALESCE(acked_generation, 0), $5), acked_at = $4
      WHERE id = $1 AND generation = $6`,
    [
      push.spec.id,
      JSON.stringify(push.spec),
      push.leaseExpiresAt,
      push.at,
      push.ackedGeneration,
      push.spec.generation,
    ],
  );
}
