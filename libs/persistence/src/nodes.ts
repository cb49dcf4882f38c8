import type { NodeLifecycleState } from '@lunanexa/contracts';
import type { Queryable } from './fleet';

/**
 * Writes of the node aggregate that the node workflows' activities make.
 * Reads live beside the row type in fleet.ts (findNode, listNodes); heartbeat
 * leases in fleet.ts (renewNodeLease) and node-recovery.ts. The caller has
 * checked a lifecycle move against libs/domain `nodeLifecycle`.
 */

export async function writeNodeLifecycle(
  q: Queryable,
  nodeId: string,
  lifecycle: NodeLifecycleState,
  at: Date,
): Promise<void> {
  await q.query(`UPDATE nodes SET lifecycle = $2, updated_at = $3 WHERE id = $1`, [nodeId, lifecycle, at]);
}

/** The credential the controller signed for the node's current key, and its serial. */
export async function storeNodeCredential(
  q: Queryable,
  issued: {
    readonly nodeId: string;
    readonly credential: unknown;
    readonly serial: number;
    readonly expiresAt: string;
    readonly at: Date;
  },
): Promise<void> {
  await q.query(
    `UPDATE nodes SET credential = $2::jsonb, credential_serial = $3, credential_expires_at = $4,
                      updated_at = $5 WHERE id = $1`,
    [issued.nodeId, JSON.stringify(issued.credential), issued.serial, issued.expiresAt, issued.at],
  );
}

/** The agent learns from its next heartbeat acknowledgement that it should present a new key. */
export async function requestNodeKeyRotation(q: Queryable, nodeId: string, at: Date): Promise<void> {
  await q.query(`UPDATE nodes SET rotation_requested_at = $2, updated_at = $2 WHERE id = $1`, [nodeId, at]);
}

/** No new placements on the node; its replicas stay (the operator's cordon, and every drain's). */
export async function cordonNode(q: Queryable, nodeId: string, at: Date): Promise<void> {
  await q.query(`UPDATE nodes SET cordoned = true, updated_at = $2 WHERE id = $1`, [nodeId, at]);
}
