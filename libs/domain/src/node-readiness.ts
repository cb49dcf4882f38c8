import type { NodeCondition, NodeInventory, NodeLifecycleState, NodeReadiness } from '@lunanexa/contracts';

/**
 * Lease-derived readiness (DESIGN.md: the controller derives Ready / NotReady
 * / Unreachable from the lease). Computed on read from the stored lease, so a
 * node whose agent died shows Unreachable the moment its lease runs out, with
 * no background job having to notice.
 *
 * - Unreachable: no heartbeat ever, or the lease expired.
 * - NotReady: the lease is fresh but the agent reports a node it cannot serve
 *   from (no GPU visible — a driver failure shows up exactly like this).
 * - Ready: the lease is fresh and the node reports GPUs.
 */
export interface ReadinessInput {
  readonly leaseRenewedAt: Date | null;
  readonly leaseExpiresAt: Date | null;
  readonly inventory: NodeInventory;
  readonly now: Date;
}

export interface ReadinessView {
  readonly readiness: NodeReadiness;
  /** The `Ready` condition with its CamelCase reason. */
  readonly condition: NodeCondition;
  /** Seconds since the last accepted heartbeat; null before the first. */
  readonly heartbeatAgeSeconds: number | null;
}

export function deriveNodeReadiness(input: ReadinessInput): ReadinessView {
  const { leaseRenewedAt, leaseExpiresAt, now } = input;
  const heartbeatAgeSeconds =
    leaseRenewedAt === null ? null : Math.max(0, (now.getTime() - leaseRenewedAt.getTime()) / 1000);
  if (leaseExpiresAt === null || leaseRenewedAt === null) {
    return {
      readiness: 'Unreachable',
      heartbeatAgeSeconds,
      condition: {
        type: 'Ready',
        status: 'Unknown',
        reason: 'NoHeartbeatYet',
        message: 'the agent has not sent an accepted heartbeat',
        lastTransitionAt: (leaseRenewedAt ?? now).toISOString(),
      },
    };
  }
  if (leaseExpiresAt.getTime() <= now.getTime()) {
    return {
      readiness: 'Unreachable',
      heartbeatAgeSeconds,
      condition: {
        type: 'Ready',
        status: 'Unknown',
        reason: 'LeaseExpired',
        message: `no heartbeat since ${leaseRenewedAt.toISOString()}`,
        lastTransitionAt: leaseExpiresAt.toISOString(),
      },
    };
  }
  if (input.inventory.gpus.length === 0) {
    return {
      readiness: 'NotReady',
      heartbeatAgeSeconds,
      condition: {
        type: 'Ready',
        status: 'False',
        reason: 'NoGpusReported',
        message: 'the agent reports no GPU (driver not loaded or nvidia-smi failing)',
        lastTransitionAt: leaseRenewedAt.toISOString(),
      },
    };
  }
  return {
    readiness: 'Ready',
    heartbeatAgeSeconds,
    condition: {
      type: 'Ready',
      status: 'True',
      reason: 'HeartbeatReceived',
      lastTransitionAt: leaseRenewedAt.toISOString(),
    },
  };
}

/**
 * The lifecycles whose nodes are expected to heartbeat: enrolled and not
 * refused or revoked. A Pending node has never been let in, so its silence is
 * no outage.
 */
export const HEARTBEATING_LIFECYCLES: readonly NodeLifecycleState[] = [
  'Approved',
  'Active',
  'Draining',
  'Drained',
];

/**
 * Nodes per readiness, every readiness present (0 when none), for the
 * `lunanexa_node_condition` gauge the node alerts and the fleet dashboard read.
 */
export function countNodeReadiness(
  nodes: readonly (Omit<ReadinessInput, 'now'> & { readonly lifecycle: NodeLifecycleState })[],
  now: Date,
): Record<NodeReadiness, number> {
  const counts: Record<NodeReadiness, number> = { Ready: 0, NotReady: 0, Unreachable: 0 };
  for (const node of nodes) {
    if (!HEARTBEATING_LIFECYCLES.includes(node.lifecycle)) continue;
    counts[deriveNodeReadiness({ ...node, now }).readiness] += 1;
  }
  return counts;
}

/** The node's heartbeat lease has not run out: the controller can count on its agent's reports. */
export function leaseHolds(leaseExpiresAt: Date | null | undefined, now: Date): boolean {
  return leaseExpiresAt !== null && leaseExpiresAt !== undefined && leaseExpiresAt.getTime() > now.getTime();
}
