import type { NodeLifecycleState } from '@lunanexa/contracts';

/**
 * When a node counts as lost, and what recovering it waits for. Pure: the
 * watch activity loads the nodes, the recovery activities load the
 * progress; the rules live here once.
 */

export interface NodeLeaseView {
  readonly nodeId: string;
  readonly lifecycle: NodeLifecycleState;
  readonly leaseExpiresAt: Date | null;
  /** Assignments on the node that still intend to run. */
  readonly runningReplicas: number;
}

export interface LostNode {
  readonly nodeId: string;
  readonly leaseExpiredAt: Date;
}

/** Lifecycles whose replicas serve traffic: a Pending, Rejected or Revoked node has none to recover. */
const SERVING_LIFECYCLES: ReadonlySet<NodeLifecycleState> = new Set(['Active', 'Draining', 'Drained']);

/** Nodes under suspicion: node id → when the watch first saw its lease expired while others' were live (ISO). */
export type LeaseSuspects = Readonly<Record<string, string>>;

export interface LeaseWatchOutcome {
  readonly lost: LostNode[];
  /** Carry into the next pass. */
  readonly suspects: LeaseSuspects;
}

/**
 * One pass of the lease watch. A node is lost when it still holds replicas
 * meant to run, its lease expired at least `graceMs` ago, and the watch has
 * seen it expired for `graceMs` while the controller was taking other
 * nodes' heartbeats. The last condition keeps a controller outage from
 * looking like every node dying: after the API comes back, leases are stale
 * until each agent's next heartbeat (every 5 s), so a grace above the
 * heartbeat interval lets them renew first. When no node at all holds a
 * live lease the controller cannot tell a dead fleet from its own deafness,
 * and declares nothing.
 */
export function watchNodeLeases(
  nodes: readonly NodeLeaseView[],
  now: Date,
  graceMs: number,
  suspects: LeaseSuspects,
): LeaseWatchOutcome {
  const nowMs = now.getTime();
  const anyLive = nodes.some((node) => node.leaseExpiresAt !== null && node.leaseExpiresAt.getTime() > nowMs);
  if (!anyLive) return { lost: [], suspects: {} };
  const next: Record<string, string> = {};
  const lost: LostNode[] = [];
  const expired = nodes
    .filter(
      (node) =>
        SERVING_LIFECYCLES.has(node.lifecycle) &&
        node.runningReplicas > 0 &&
        node.leaseExpiresAt !== null &&
        node.leaseExpiresAt.getTime() <= nowMs,
    )
    .sort((a, b) => (a.nodeId < b.nodeId ? -1 : a.nodeId > b.nodeId ? 1 : 0));
  for (const node of expired) {
    const leaseExpiredAt = node.leaseExpiresAt as Date;
    const firstSeen = suspects[node.nodeId] ?? now.toISOString();
    next[node.nodeId] = firstSeen;
    if (nowMs - Date.parse(firstSeen) >= graceMs && nowMs - leaseExpiredAt.getTime() >= graceMs) {
      lost.push({ nodeId: node.nodeId, leaseExpiredAt });
    }
  }
  return { lost, suspects: next };
}

/** One recovery per loss: the same expired lease always maps to the same workflow id; a later loss to a new one. */
export function nodeRecoveryWorkflowId(nodeId: string, leaseExpiredAt: Date): string {
  return `nodeRecovery/${nodeId}/${leaseExpiredAt.getTime()}`;
}

export interface DeploymentRecoveryProgress {
  readonly deploymentId: string;
  readonly desiredReplicas: number;
  /** Replicas intended to run, observed Ready at their generation, on nodes other than the lost one. */
  readonly readyElsewhere: number;
  /** The deployment is stopping or stopped: nothing to replace. */
  readonly finished: boolean;
}

/** Every affected deployment is whole again without the lost node (or no longer wants replicas). */
export function recoveryComplete(progress: readonly DeploymentRecoveryProgress[]): boolean {
  return progress.every((p) => p.finished || p.readyElsewhere >= p.desiredReplicas);
}
