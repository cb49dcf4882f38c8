/**
 * Which of a route snapshot's Ready replicas take new requests. A replica's
 * standing says how fresh the evidence is that it serves what its deployment
 * wants:
 *
 * - `serving`: its node's lease is live, the agent reported Ready for the
 *   current generation, and the node is not draining;
 * - `draining`: the same on a Draining node. A drain is make-before-break: the
 *   replica keeps serving until its deployment has a serving replica
 *   elsewhere, then traffic leaves it while its in-flight requests finish;
 * - `unconfirmed`: the agent's last word was Ready, but its node's lease lapsed
 *   less than UNCONFIRMED_ROUTE_GRACE_MS ago (heartbeats late: a busy or
 *   restarting controller, a slow link), or the desired generation moved on and
 *   the agent has not yet reported it (the runtime still serves the same model
 *   meanwhile).
 *
 * Per deployment only the best standing present takes requests. So a replica
 * whose heartbeats are merely late never takes traffic from one that is
 * confirmed, yet while a deployment has nothing better its route does not
 * vanish: a client that names it is tried against the replica (and fails over
 * or gets UPSTREAM_FAILED if it is really gone) instead of being told the model
 * does not exist.
 */
export type ReplicaStanding = 'serving' | 'draining' | 'unconfirmed';

/**
 * How long past its node's lease a replica the agent last reported Ready may
 * still be a deployment's last resort. Node recovery marks a lost node's
 * replicas Lost after its own grace, which ends this sooner for nodes that
 * really died; the bound covers the rest (a node back to Active meanwhile
 * renews its lease and is `serving` again).
 */
export const UNCONFIRMED_ROUTE_GRACE_MS = 30_000;

export interface RouteCandidate {
  readonly deploymentId: string;
  readonly nodeDraining: boolean;
  /** The node's lease had not expired when the snapshot was read. */
  readonly nodeLeaseLive: boolean;
  /** The agent's Ready report is for the assignment's current generation. */
  readonly generationCurrent: boolean;
}

const RANK: Readonly<Record<ReplicaStanding, number>> = { serving: 0, draining: 1, unconfirmed: 2 };

export function replicaStanding(replica: RouteCandidate): ReplicaStanding {
  if (!replica.nodeLeaseLive || !replica.generationCurrent) return 'unconfirmed';
  return replica.nodeDraining ? 'draining' : 'serving';
}

/** The replicas that take new requests: per deployment, those of the best standing it has (order kept). */
export function servingReplicas<T extends RouteCandidate>(replicas: readonly T[]): T[] {
  const best = new Map<string, number>();
  for (const replica of replicas) {
    const rank = RANK[replicaStanding(replica)];
    const seen = best.get(replica.deploymentId);
    if (seen === undefined || rank < seen) best.set(replica.deploymentId, rank);
  }
  return replicas.filter((replica) => RANK[replicaStanding(replica)] === best.get(replica.deploymentId));
}
