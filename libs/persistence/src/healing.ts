import type { NodeCondition, NodeLifecycleState } from '@lunanexa/contracts';
import type { Queryable } from './fleet';
import { returnedRows } from './returning';
import type { HealingNodeView, HealingReplicaView } from '@lunanexa/domain';

/**
 * What the healing rules read and write: the replica health counters kept
 * where heartbeats are ingested, the view one healing pass decides on
 * (libs/domain planHealing), and the marks a healing action leaves (cooldown,
 * restart baseline, cordon). Only loads and writes; the decisions are
 * libs/domain's.
 */

/** Nodes and replicas as the healing decision (libs/domain planHealing) reads them. */
export type HealingNodeRow = HealingNodeView;
export type HealingReplicaRow = HealingReplicaView;

/** Every node with its crashes since `crashesSince`, and every replica meant to run of a live deployment. */
export async function loadHealingView(
  q: Queryable,
  crashesSince: Date,
): Promise<{ nodes: HealingNodeRow[]; replicas: HealingReplicaRow[] }> {
  const nodes = await q.query<
    {
      id: string;
      name: string;
      lifecycle: string;
      cordoned: boolean;
      lease_expires_at: Date | null;
      healed_at: Date | null;
      crashes: Record<string, number> | null;
      conditions: NodeCondition[] | null;
    }[]
  >(
    `SELECT n.id, n.name, n.lifecycle, n.cordoned, n.lease_expires_at, n.healed_at,
            n.conditions -> 'conditions' AS conditions,
            (SELECT jsonb_object_agg(c.assignment_id, c.count)
               FROM (SELECT assignment_id, count(*)::integer AS count FROM runtime_crashes
                      WHERE node_id = n.id AND observed_at >= $1 GROUP BY assignment_id) c) AS crashes
       FROM nodes n
      ORDER BY n.id`,
    [crashesSince],
  );
  const replicas = await q.query<
    {
      id: string;
      deployment_id: string;
      deployment_name: string;
      node_id: string;
      generation: number;
      observed_generation: number | null;
      observed_state: string | null;
      observed_restarts: number;
      restarts_baseline: number;
      health_failures: number;
      healed_at: Date | null;
    }[]
  >(
    `SELECT a.id, a.deployment_id, d.name AS deployment_name, a.node_id, a.generation, a.observed_generation,
            a.observed_state, a.observed_restarts, a.restarts_baseline, a.health_failures, a.healed_at
       FROM assignments a JOIN deployments d ON d.id = a.deployment_id
      WHERE a.intent = 'Run' AND d.state NOT IN ('Stopping', 'Stopped')
      ORDER BY a.id`,
  );
  return {
    nodes: nodes.map((row) => ({
      nodeId: row.id,
      nodeName: row.name,
      lifecycle: row.lifecycle as NodeLifecycleState,
      cordoned: row.cordoned,
      leaseExpiresAt: row.lease_expires_at,
      recentCrashes: row.crashes ?? {},
      lastHealedAt: row.healed_at,
      conditions: row.conditions ?? [],
    })),
    replicas: replicas.map((row) => ({
      assignmentId: row.id,
      deploymentId: row.deployment_id,
      deploymentName: row.deployment_name,
      nodeId: row.node_id,
      generation: row.generation,
      observedGeneration: row.observed_generation,
      observedState: row.observed_state,
      restarts: row.observed_restarts,
      restartsBaseline: row.restarts_baseline,
      healthFailures: row.health_failures,
      lastHealedAt: row.healed_at,
    })),
  };
}

/** Healing acted on the replica: cooldown starts, crash loops count again from here, Unhealthy reports too. */
export async function markReplicaHealed(q: Queryable, assignmentId: string, at: Date): Promise<void> {
  await q.query(
    `UPDATE assignments SET healed_at = $2, restarts_baseline = observed_restarts, health_failures = 0
      WHERE id = $1`,
    [assignmentId, at],
  );
}

/**
 * Healing cordoned the node (the same cordon an operator sets: no new
 * placements, replicas stay). Returns whether it was not cordoned before.
 */
export async function cordonNodeForHealing(q: Queryable, nodeId: string, at: Date): Promise<boolean> {
  const raw = await q.query<unknown>(
    `WITH before AS (SELECT id, cordoned FROM nodes WHERE id = $1 FOR UPDATE)
     UPDATE nodes n SET cordoned = true, healed_at = $2, updated_at = $2
       FROM before b WHERE n.id = b.id
     RETURNING b.cordoned AS was`,
    [nodeId, at],
  );
  return returnedRows<{ was: boolean }>(raw)[0]?.was === false;
}

/** Crash rows older than any window the rules may use. */
export async function pruneRuntimeCrashes(q: Queryable, before: Date): Promise<void> {
  await q.query(`DELETE FROM runtime_crashes WHERE observed_at < $1`, [before]);
}
