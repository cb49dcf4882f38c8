import type { DeploymentState, NodeLifecycleState } from '@lunanexa/contracts';
import type { ReconcileAssignmentView, ReconcileNodeView, ReportedReplica } from '@lunanexa/domain';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
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

/**
 * The digest's one statement, shared with infra/backup/backup.sh and
 * restore.sh so a dump's recorded digest and a restored database's are
 * computed the same way.
 */
export const CONTROL_PLANE_DIGEST_SQL_FILE = join(__dirname, '..', '..', 'sql', 'control-plane-digest.sql');

/**
 * A digest of the control plane's durable state, to show a restore brought
 * back the registry, the desired state and the audit chain as they were
 * (compare the digest of the source with the restored one before services
 * start writing). Timestamps are rendered in UTC so two clusters agree.
 */
export async function controlPlaneDigest(db: DataSource): Promise<ControlPlaneDigest> {
  const statement = readFileSync(CONTROL_PLANE_DIGEST_SQL_FILE, 'utf8');
  return db.transaction('REPEATABLE READ', async (manager) => {
    await manager.query(`SET LOCAL TimeZone = 'UTC'`);
    const [row] =
      await manager.query<
        { registry: string; desired_state: string; audit_events: number; audit_head_hash: string | null }[]
      >(statement);
    const verification = await verifyAuditChain(manager);
    return {
      registry: row?.registry ?? '',
      desiredState: row?.desired_state ?? '',
      auditChain: {
        events: row?.audit_events ?? 0,
        headHash: row?.audit_head_hash ?? null,
        valid: verification.valid,
      },
    };
  });
}
