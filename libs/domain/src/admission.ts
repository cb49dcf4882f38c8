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
 * What a replica's runtime last said about its own load (the agent scrapes
 * it and reports it in heartbeats; the api stores it per assignment). Nulls
 * mean "does not say". `scrapedAtMs` is milliseconds since the epoch.
 */
export interface ReportedReplicaLoad {
  readonly waiting: number | null;
  readonly running: number | null;
  readonly cachePressure: number | null;
  readonly scrapedAtMs: number;
}

/**
 * A reported load older than this is ignored: long enough that a late or
 * lost heartbeat, the agent's 2 s reconcile pass (which reads the load) and
 * agents still beating at the former 5 s interval do not drop a replica's
 * figures, while a node that stopped reporting (or a route snapshot kept
 * through a database outage) stops steering traffic within seconds.
 */
export const RUNTIME_LOAD_STALE_MS = 15_000;

/**
 * KV cache share at or above which a runtime is about to queue or preempt
 * requests (vLLM and SGLang start evicting near a full cache); such a replica
 * is avoided while another has room.
 */
export const CACHE_PRESSURE_HIGH = 0.95;

/** The report when it is recent enough to trust at `nowMs`, else undefined. */
export function freshReplicaLoad(
  load: ReportedReplicaLoad | null | undefined,
  nowMs: number,
): ReportedReplicaLoad | undefined {
  if (load === null || load === undefined || !Number.isFinite(load.scrapedAtMs)) return undefined;
  return nowMs - load.scrapedAtMs <= RUNTIME_LOAD_STALE_MS ? load : undefined;
}

/**
 * How loaded a replica looks to this gateway: its own in-flight count (exact
 * for this gateway) plus what the runtime says queues inside it — requests
 * other gateways sent, which a new request would wait behind — and, when the
 * KV cache is nearly full, a whole replica's worth of requests, so it is
 * chosen only when every other replica is as busy. Unknown or stale figures
 * add nothing. `running` is not added: it counts this gateway's own requests too.
 */
export function replicaScore(
  inFlight: number,
  replicaConcurrency: number,
  load: ReportedReplicaLoad | undefined,
): number {
  if (load === undefined) return inFlight;
  const waiting = load.waiting ?? 0;
  const cachePenalty =
    load.cachePressure !== null && load.cachePressure >= CACHE_PRESSURE_HIGH ? replicaConcurrency : 0;
  return inFlight + waiting + cachePenalty;
}

/**
 * The replica a request goes to: the least loaded one below the limit, by
 * replicaScore, the earliest in `inFlight`'s order on a tie (the route's
 * rotation, so equal replicas share light traffic); -1 when every replica is
 * full. The limit applies to this gateway's own in-flight count only: the
 * runtime's figures steer the choice but never refuse a request. Two
 * replicas that score the same and both report a fresh cache pressure go to
 * the emptier cache. `runtime.reported[i]` is replica i's report, if any,
 * judged fresh or stale at `runtime.nowMs`.
 */
export function chooseReplica(
  inFlight: readonly number[],
  replicaConcurrency: number,
  runtime?: {
    readonly reported: readonly (ReportedReplicaLoad | null | undefined)[];
    readonly nowMs: number;
  },
): number {
  let best = -1;
  let bestScore = Number.POSITIVE_INFINITY;
  let bestCache: number | null = null;
  for (let index = 0; index < inFlight.length; index += 1) {
    const own = inFlight[index] ?? Number.POSITIVE_INFINITY;
    if (own >= replicaConcurrency) continue;
    const load = runtime && freshReplicaLoad(runtime.reported[index], runtime.nowMs);
    const score = replicaScore(own, replicaConcurrency, load);
    const cache = load?.cachePressure ?? null;
    const better =
      best === -1 ||
      score < bestScore ||
      (score === bestScore && cache !== null && bestCache !== null && cache < bestCache);
    if (better) {
      best = index;
      bestScore = score;
      bestCache = cache;
    }
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

/**
 * How busy a node's runtimes are, 0 to 1, for placement (PlacementNode.runtimeLoad): the mean over its runtimes
 * with a fresh report of each one's larger pressure — KV cache share in use, or the share of its requests still
 * waiting. Null when no runtime on the node has a fresh report (placement then treats load as neutral).
 */
export function nodeRuntimeLoad(loads: readonly ReportedReplicaLoad[], nowMs: number): number | null {
  const figures: number[] = [];
  for (const report of loads) {
    const load = freshReplicaLoad(report, nowMs);
    if (load === undefined) continue;
    const waiting = load.waiting ?? 0;
    const queued = waiting + (load.running ?? 0);
    const queueShare = load.waiting === null || queued === 0 ? null : waiting / queued;
    if (load.cachePressure === null && queueShare === null) continue;
    figures.push(Math.min(1, Math.max(load.cachePressure ?? 0, queueShare ?? 0)));
  }
  return figures.length === 0 ? null : figures.reduce((sum, figure) => sum + figure, 0) / figures.length;
}
