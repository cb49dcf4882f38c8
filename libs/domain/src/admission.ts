import { WORKLOAD_PRIORITIES, type WorkloadPriority } from '@lunanexa/contracts';

/**
 * The gateway's admission rules for one group of replicas (an alias's
 * deployment, or the replicas of a pinned `name@version`): each replica takes
 * at most `replicaConcurrency` requests at once; beyond that requests wait in
 * a bounded queue ordered by priority (high — interactive — before normal
 * before low — batch —, first come first served within one priority); beyond
 * the queue they are refused. Pure: the gateway keeps the counters and calls
 * these to decide.
 */

/** Rank of a priority in the queue: 0 is served first. */
export function priorityRank(priority: WorkloadPriority): number {
  return PRIORITY_RANKS[priority];
}

const PRIORITY_RANKS: Readonly<Record<WorkloadPriority, number>> = { high: 0, normal: 1, low: 2 };

/** The priorities from first served to last. */
export const PRIORITIES_BY_RANK: readonly WorkloadPriority[] = [...WORKLOAD_PRIORITIES].sort(
  (a, b) => priorityRank(a) - priorityRank(b),
);

/**
 * The replica a request goes to: the least loaded one below the limit, the
 * earliest in `inFlight`'s order on a tie (the route's rotation, so equal
 * replicas share light traffic); -1 when every replica is full.
 */
export function chooseReplica(inFlight: readonly number[], replicaConcurrency: number): number {
  let best = -1;
  for (let index = 0; index < inFlight.length; index += 1) {
    const load = inFlight[index] ?? Number.POSITIVE_INFINITY;
    if (load >= replicaConcurrency) continue;
    if (best === -1 || load < (inFlight[best] ?? Number.POSITIVE_INFINITY)) best = index;
  }
  return best;
}

/** How many requests may wait for a group of `replicas` replicas. */
export function queueLimit(replicas: number, queuePerReplica: number): number {
  return Math.max(1, replicas) * queuePerReplica;
}

export type QueueDecision =
  /** Room in the queue: wait. */
  | { readonly kind: 'enqueue' }
  /** Queue full, but a waiter of lower priority gives up its place: the youngest of `shedRank`. */
  | { readonly kind: 'shed'; readonly shedRank: number }
  /** Queue full of waiters at least as urgent: refuse the newcomer. */
  | { readonly kind: 'refuse' };

/**
 * What to do with a request that found every replica busy. `queuedByRank[r]`
 * counts the waiters of rank r. A full queue sheds its least urgent waiter
 * for a more urgent newcomer, so interactive traffic is not refused while
 * batch traffic holds the queue.
 */
export function queueDecision(
  queuedByRank: readonly number[],
  limit: number,
  incomingRank: number,
): QueueDecision {
  const queued = queuedByRank.reduce((sum, count) => sum + count, 0);
  if (queued < limit) return { kind: 'enqueue' };
  for (let rank = queuedByRank.length - 1; rank > incomingRank; rank -= 1) {
    if ((queuedByRank[rank] ?? 0) > 0) return { kind: 'shed', shedRank: rank };
  }
  return { kind: 'refuse' };
}

/**
 * Seconds a refused caller should wait before retrying: the time the queue
 * ahead of it takes to drain at the group's recent service time, at least 1
 * and at most 60.
 */
export function capacityRetryAfterSeconds(
  averageServiceMs: number,
  queued: number,
  capacity: number,
): number {
  if (!Number.isFinite(averageServiceMs) || averageServiceMs <= 0 || capacity <= 0) return 1;
  const seconds = Math.ceil((averageServiceMs * (queued + 1)) / capacity / 1000);
  return Math.min(60, Math.max(1, seconds));
}
