import type { NodeLifecycleState } from '@lunanexa/contracts';
import type { Queryable } from './fleet';
import { returnedRows } from './returning';

/**
 * What NodeRecovery reads and writes: the lease view of every node, the
 * replicas of a lost node marked Lost, and how far each affected deployment
 * is from whole again without it. The decisions are libs/domain's
 * (lostNodes, recoveryComplete); this module only loads and writes.
 */

export interface NodeLeaseRow {
  readonly nodeId: string;
  readonly lifecycle: NodeLifecycleState;
  readonly leaseExpiresAt: Date | null;
  readonly runningReplicas: number;
}

/** Every node with its lease and how many of its assignments intend to run. One statement. */
export async function listNodeLeases(q: Queryable): Promise<NodeLeaseRow[]> {
  const rows = await q.query<
    { id: string; lifecycle: string; lease_expires_at: Date | null; running: string }[]
  >(
    `SELECT n.id, n.lifecycle, n.lease_expires_at,
            count(a.id) FILTER (WHERE a.intent = 'Run') AS running
       FROM nodes n LEFT JOIN assignments a ON a.node_id = n.id
      GROUP BY n.id
      ORDER BY n.id`,
  );
  return rows.map((row) => ({
    nodeId: row.id,
    lifecycle: row.lifecycle as NodeLifecycleState,
    leaseExpiresAt: row.lease_expires_at,
    runningReplicas: Number(row.running),
  }));
}

export interface LostReplica {
  readonly assignmentId: string;
  readonly deploymentId: string;
  /** What the agent last reported before its node went silent. */
  readonly lastObservedState: string | null;
}

/**
 * Marks every replica meant to run on the node Lost: never routed, never
 * counted Ready, until its deployment stops it there (a new generation) and
 * the returning agent reports what it really has. Returns what it marked,
 * including replicas an earlier attempt already marked (idempotent).
 */
export async function markNodeReplicasLost(
  q: Queryable,
  nodeId: string,
  reason: string,
  at: Date,
): Promise<LostReplica[]> {
  const raw = await q.query<unknown>(
    `WITH before AS (
       SELECT id, observed_state FROM assignments WHERE node_id = $1 AND intent = 'Run' FOR UPDATE)
     UPDATE assignments a
        SET observed_state = 'Lost', observed_message = $2, observed_at = $3, in_flight = NULL, updated_at = $3
       FROM before b
      WHERE a.id = b.id
     RETURNING a.id, a.deployment_id, b.observed_state AS previous`,
    [nodeId, reason, at],
  );
  return returnedRows<{ id: string; deployment_id: string; previous: string | null }>(raw)
    .map((row) => ({
      assignmentId: row.id,
      deploymentId: row.deployment_id,
      lastObservedState: row.previous,
    }))
    .sort((a, b) => (a.assignmentId < b.assignmentId ? -1 : 1));
}

export interface DeploymentRecoveryRow {
  readonly deploymentId: string;
  readonly desiredReplicas: number;
  readonly readyElsewhere: number;
  readonly finished: boolean;
}

/**
 * For each deployment: its desired replicas and the replicas Ready at their
 * generation on nodes other than the lost ones (one node, or every node a
 * deployment evacuates at once) — the "routable Ready replica" condition
 * minus the route table's own lease checks, which the gateway applies on its
 * side.
 */
export async function deploymentRecoveryProgress(
  q: Queryable,
  deploymentIds: readonly string[],
  lostNodeIds: string | readonly string[],
): Promise<DeploymentRecoveryRow[]> {
  const rows = await q.query<{ id: string; desired_replicas: number; state: string; ready: string }[]>(
    `SELECT d.id, d.desired_replicas, d.state,
            count(a.id) FILTER (
              WHERE a.node_id <> ALL($2::text[]) AND a.intent = 'Run' AND a.observed_state = 'Ready'
                AND a.observed_generation = a.generation) AS ready
       FROM deployments d LEFT JOIN assignments a ON a.deployment_id = d.id
      WHERE d.id = ANY($1::text[])
      GROUP BY d.id
      ORDER BY d.id`,
    [deploymentIds, typeof lostNodeIds === 'string' ? [lostNodeIds] : lostNodeIds],
  );
  return rows.map((row) => ({
    deploymentId: row.id,
    desiredReplicas: row.desired_replicas,
    readyElsewhere: Number(row.ready),
    finished: row.state === 'Stopping' || row.state === 'Stopped',
  }));
}
