import type { DeploymentState, NodeLifecycleState } from '@lunanexa/contracts';
import type { ReconcileAssignmentView, ReconcileNodeView, ReportedReplica } from '@lunanexa/domain';
import type { DataSource } from 'typeorm';
import type { Queryable } from './fleet';
import { verifyAuditChain } from './audit-log';
import { returnedRows } from './returning';

/**
 * What Reconcile reads and writes, and the digest that shows a restore kept
 * the control plane's state. Only loads and writes; the decision is
 * libs/domain planReconcile's.
 */

export interface ReconcileDeploymentRow {
  readonly deploymentId: string;
  readonly name: string;
  readonly state: DeploymentState;
  readonly workflowId: string;
}

export interface ReconcileRows {
  /** Deployments that are not Stopped: each should have a running workflow. */
  readonly deployments: ReconcileDeploymentRow[];
  /** Their replicas, as desired. */
  readonly assignments: ReconcileAssignmentView[];
  /** Every node, with the replicas its last heartbeat reported. */
  readonly nodes: ReconcileNodeView[];
}

/** The desired state and the nodes' last reports, read in one snapshot (liveness of workflows is Temporal's to say). */
export async function loadReconcileRows(db: DataSource): Promise<ReconcileRows> {
  return db.transaction('REPEATABLE READ', async (manager) => {
    const deployments = await manager.query<
      { id: string; name: string; state: DeploymentState; workflow_id: string }[]
    >(`SELECT id, name, state, workflow_id FROM deployments WHERE state <> 'Stopped' ORDER BY id`);
    const assignments = await manager.query<
      { id: string; deployment_id: string; node_id: string; intent: 'Run' | 'Stop'; generation: number }[]
    >(
      `SELECT a.id, a.deployment_id, a.node_id, a.intent, a.generation
         FROM assignments a JOIN deployments d ON d.id = a.deployment_id
        WHERE d.state <> 'Stopped'
        ORDER BY a.id`,
    );
    const nodes = await manager.query<
      {
        id: string;
        name: string;
        lifecycle: NodeLifecycleState;
        lease_expires_at: Date | null;
        reported: unknown;
      }[]
    >(
      `SELECT id, name, lifecycle, lease_expires_at, observed -> 'observedAssignments' AS reported
         FROM nodes ORDER BY id`,
    );
    return {
      deployments: deployments.map((row) => ({
        deploymentId: row.id,
        name: row.name,
        state: row.state,
        workflowId: row.workflow_id,
      })),
      assignments: assignments.map((row) => ({
        assignmentId: row.id,
        deploymentId: row.deployment_id,
        nodeId: row.node_id,
        intent: row.intent,
        generation: row.generation,
      })),
      nodes: nodes.map((row) => ({
        nodeId: row.id,
        nodeName: row.name,
        lifecycle: row.lifecycle,
        leaseExpiresAt: row.lease_expires_at,
        reported: reportedReplicas(row.reported),
      })),
    };
  });
}

/** The heartbeat's observedAssignments as stored (validated on ingest); anything unreadable is skipped. */
function reportedReplicas(value: unknown): ReportedReplica[] {
  if (!Array.isArray(value)) return [];
  const replicas: ReportedReplica[] = [];
  for (const item of value as Record<string, unknown>[]) {
    const { assignmentId, deploymentId, generation, state } = item ?? {};
    if (
      typeof assignmentId === 'string' &&
      typeof deploymentId === 'string' &&
      typeof generation === 'number' &&
      typeof state === 'string'
    )
      replicas.push({ assignmentId, deploymentId, generation, state });
  }
  return replicas;
}

/**
 * Moves a replica's desired generation from `from` to `to` (compare-and-set:
 * false when it no longer holds `from`, as after a retried step). The
 * intent and spec stay; the next push signs them at the new generation.
 */
export async function advanceAssignmentGeneration(
  q: Queryable,
  change: { readonly assignmentId: string; readonly from: number; readonly to: number; readonly at: Date },
): Promise<boolean> {
  const raw = await q.query(
    `UPDATE assignments SET generation = $3, updated_at = $4 WHERE id = $1 AND generation = $2 RETURNING id`,
    [change.assignmentId, change.from, change.to, change.at],
  );
  return returnedRows<{ id: string }>(raw).length > 0;
}

export interface ControlPlaneDigest {
  /** sha256 over models, licenses, runtimes, model versions, aliases and their revisions, trusted signing keys. */
  readonly registry: string;
  /** sha256 over the desired state: deployments, their replicas' placement, generation and intent, nodes' lifecycle, cordon, labels and taints. */
  readonly desiredState: string;
  readonly auditChain: {
    readonly events: number;
    /** The hash of the last event: it commits to every event before it. */
    readonly headHash: string | null;
    /** Every link recomputed from its event. */
    readonly valid: boolean;
  };
}

/** Tables of the registry, whole rows; the key orders them. */
const REGISTRY_TABLES: readonly (readonly [table: string, key: string])[] = [
  ['models', 'id'],
  ['licenses', 'id'],
  ['runtimes', 'id'],
  ['model_versions', 'id'],
  ['aliases', 'id'],
  ['alias_revisions', "alias_id::text || '/' || revision"],
  ['trusted_signing_keys', 'key_id'],
];

/** The desired state only: heartbeats, leases, observations and the scheduler's last decision record (placement) are left out. */
const DESIRED_STATE_SELECTS: readonly string[] = [
  `SELECT id AS k, jsonb_build_array(id, name, model_version_id, model_ref, desired_replicas, generation, node_selector,
          requested_node_id, workflow_id, purpose, rollout_id, placement_strategy, created_by) AS v
     FROM deployments`,
  `SELECT id AS k, jsonb_build_array(id, deployment_id, node_id, generation, intent) AS v FROM assignments`,
  `SELECT id AS k, jsonb_build_array(id, name, lifecycle, cordoned, labels, taints) AS v FROM nodes`,
];

/**
 * A digest of the control plane's durable state, to show a restore brought
 * back the registry, the desired state and the audit chain as they were
 * (compare the digest of the source with the restored one before services
 * start writing). Timestamps are rendered in UTC so two clusters agree.
 */
export async function controlPlaneDigest(db: DataSource): Promise<ControlPlaneDigest> {
  return db.transaction('REPEATABLE READ', async (manager) => {
    await manager.query(`SET LOCAL TimeZone = 'UTC'`);
    const hashOf = async (selects: readonly string[]): Promise<string> => {
      const union = selects.map(
        (select, index) => `SELECT ${index} AS t, k::text AS k, v FROM (${select}) s`,
      );
      const rows = await manager.query<{ digest: string }[]>(
        `SELECT encode(sha256(convert_to(coalesce(string_agg(t || ' ' || k || ' ' || v::text, E'\\n' ORDER BY t, k), ''),
                'UTF8')), 'hex') AS digest
           FROM (${union.join(' UNION ALL ')}) rows`,
      );
      return rows[0]?.digest ?? '';
    };
    const registry = await hashOf(
      REGISTRY_TABLES.map(([table, key]) => `SELECT ${key} AS k, to_jsonb(${table}) AS v FROM ${table}`),
    );
    const desiredState = await hashOf(DESIRED_STATE_SELECTS);
    const head = await manager.query<{ events: number; head_hash: string | null }[]>(
      `SELECT count(*)::integer AS events, (SELECT hash FROM audit_events ORDER BY seq DESC LIMIT 1) AS head_hash
         FROM audit_events`,
    );
    const verification = await verifyAuditChain(manager);
    return {
      registry,
      desiredState,
      auditChain: {
        events: head[0]?.events ?? 0,
        headHash: head[0]?.head_hash ?? null,
        valid: verification.valid,
      },
    };
  });
}
