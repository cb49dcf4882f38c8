import type { GpuTelemetry, NodeLifecycleState, NodeLabels, Taint } from '@lunanexa/contracts';
import type { NodeConditionsState } from '@lunanexa/domain';
import type { Queryable } from './fleet';

/**
 * The API's writes to bootstrap_tokens and nodes (migration 1767312000000):
 * operators issuing and revoking tokens and changing a node's labels, taints
 * and cordon; the agent channel enrolling a node and recording heartbeats.
 * Callers hold the transaction and the row lock.
 */

export interface NewBootstrapToken {
  readonly id: string;
  readonly tokenHash: string;
  readonly prefix: string;
  readonly nodeName: string | null;
  readonly labels: NodeLabels;
  readonly autoApprove: boolean;
  readonly createdBy: string;
  readonly createdAt: Date;
  readonly expiresAt: Date;
}

export async function insertBootstrapToken(q: Queryable, token: NewBootstrapToken): Promise<void> {
  await q.query(
    `INSERT INTO bootstrap_tokens (id, token_hash, prefix, node_name, labels, auto_approve, created_by,
       created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8, $9)`,
    [
      token.id,
      token.tokenHash,
      token.prefix,
      token.nodeName,
      JSON.stringify(token.labels),
      token.autoApprove,
      token.createdBy,
      token.createdAt,
      token.expiresAt,
    ],
  );
}

/** Revokes the token (keeping the first revocation time); false when there is no such token. */
export async function revokeBootstrapToken(q: Queryable, id: string): Promise<boolean> {
  const rows = await q.query<{ id: string }[]>(
    `UPDATE bootstrap_tokens SET revoked_at = COALESCE(revoked_at, now()) WHERE id::text = $1 RETURNING id`,
    [id],
  );
  return rows.length > 0;
}

export async function markBootstrapTokenUsed(
  q: Queryable,
  id: string,
  usedAt: Date,
  nodeId: string,
): Promise<void> {
  await q.query(`UPDATE bootstrap_tokens SET used_at = $2, used_by_node_id = $3 WHERE id = $1`, [
    id,
    usedAt,
    nodeId,
  ]);
}

/** Whether the token a node enrolled with approves it without an operator (false when the token is gone). */
export async function bootstrapTokenAutoApproves(q: Queryable, id: string): Promise<boolean> {
  const rows = await q.query<{ auto_approve: boolean }[]>(
    `SELECT auto_approve FROM bootstrap_tokens WHERE id = $1`,
    [id],
  );
  return rows[0]?.auto_approve ?? false;
}

export interface PendingNode {
  readonly id: string;
  readonly name: string;
  readonly labels: NodeLabels;
  readonly address: string;
  readonly sshPort: number;
  readonly hostKeyFingerprint: string;
  readonly keyId: string;
  readonly publicKey: string;
  readonly inventory: unknown;
  readonly enrollWorkflowId: string;
  readonly bootstrapTokenId: string;
  readonly enrolledAt: Date;
}

/** A newly enrolled node: Pending, uncordoned, no taints. */
export async function insertPendingNode(q: Queryable, node: PendingNode): Promise<void> {
  await q.query(
    `INSERT INTO nodes (id, name, lifecycle, cordoned, labels, taints, address, ssh_port, host_key_fingerprint,
       key_id, public_key, inventory, enroll_workflow_id, bootstrap_token_id, enrolled_at, updated_at)
     VALUES ($1, $2, 'Pending', false, $3::jsonb, '[]'::jsonb, $4, $5, $6, $7, $8, $9::jsonb, $10, $11, $12, $12)`,
    [
      node.id,
      node.name,
      JSON.stringify(node.labels),
      node.address,
      node.sshPort,
      node.hostKeyFingerprint,
      node.keyId,
      node.publicKey,
      JSON.stringify(node.inventory),
      node.enrollWorkflowId,
      node.bootstrapTokenId,
      node.enrolledAt,
    ],
  );
}

/** An operator's change to a node: its labels, its taints, or its cordon (with the lifecycle that goes with it). */
export type NodeSettingsChange =
  | { readonly labels: NodeLabels }
  | { readonly taints: readonly Taint[] }
  | { readonly cordoned: boolean; readonly lifecycle: NodeLifecycleState };

export async function changeNodeSettings(
  q: Queryable,
  nodeId: string,
  change: NodeSettingsChange,
): Promise<void> {
  if ('labels' in change) {
    await q.query(`UPDATE nodes SET labels = $2::jsonb, updated_at = now() WHERE id = $1`, [
      nodeId,
      JSON.stringify(change.labels),
    ]);
  } else if ('taints' in change) {
    await q.query(`UPDATE nodes SET taints = $2::jsonb, updated_at = now() WHERE id = $1`, [
      nodeId,
      JSON.stringify(change.taints),
    ]);
  } else {
    await q.query(`UPDATE nodes SET cordoned = $2, lifecycle = $3, updated_at = now() WHERE id = $1`, [
      nodeId,
      change.cordoned,
      change.lifecycle,
    ]);
  }
}

export interface NodeHeartbeatWrite {
  readonly nodeId: string;
  readonly sequence: number;
  readonly receivedAt: Date;
  readonly leaseExpiresAt: Date;
  /** The inventory as JSON, or null to keep the stored one (unchanged: not rewritten or re-toasted). */
  readonly inventoryJson: string | null;
  readonly observed: unknown;
  readonly gpuTelemetry: readonly GpuTelemetry[];
  readonly conditions: NodeConditionsState;
  readonly agentCredentialSerial: number | null;
  readonly keyId: string;
  readonly publicKey: string;
  readonly nextKeyId: string | null;
  readonly nextPublicKey: string | null;
  readonly rotationRequestedAt: Date | null;
  readonly address: string;
  readonly sshPort: number;
}

/** What one accepted heartbeat changes on its node: sequence, lease, inventory, observed state, GPU telemetry, conditions, keys, endpoint. */
export async function recordNodeHeartbeat(q: Queryable, beat: NodeHeartbeatWrite): Promise<void> {
  await q.query(
    `UPDATE nodes SET last_heartbeat_sequence = $2, lease_renewed_at = $3, lease_expires_at = $4,
            inventory = COALESCE($5::jsonb, inventory), observed = $6::jsonb, agent_credential_serial = $7, key_id = $8, public_key = $9,
            next_key_id = $10, next_public_key = $11, rotation_requested_at = $12, address = $13, ssh_port = $14,
            gpu_telemetry = $15::jsonb, conditions = $16::jsonb, updated_at = $3
      WHERE id = $1`,
    [
      beat.nodeId,
      beat.sequence,
      beat.receivedAt,
      beat.leaseExpiresAt,
      beat.inventoryJson,
      JSON.stringify(beat.observed),
      beat.agentCredentialSerial,
      beat.keyId,
      beat.publicKey,
      beat.nextKeyId,
      beat.nextPublicKey,
      beat.rotationRequestedAt,
      beat.address,
      beat.sshPort,
      JSON.stringify(beat.gpuTelemetry),
      JSON.stringify(beat.conditions),
    ],
  );
}
