import type { Queryable } from './fleet';

/**
 * The gateway's routing snapshot (apps/gateway postgres-route-table.ts): which
 * replicas and aliases can take a request right now, read every refresh.
 */

/**
 * Every replica that may take a new request, in one round trip. A replica
 * counts only when desired state (intent Run, deployment not being torn down)
 * and what the agent reported (Ready, with a port) agree, under a live
 * assignment lease. A Draining node's replicas stay in the rows, marked
 * `node_draining`: a drain is make-before-break, and the deployment's own
 * workflow takes them out (intent Stop) once the replacement is Ready. Drained
 * nodes drop out; cordon is deliberately absent because it only blocks new
 * placements. A node that never heartbeated (NULL lease) drops out.
 *
 * Two kinds of replica come with a flag rather than being left out, because
 * the gateway keeps them as a deployment's last resort (libs/domain
 * `servingReplicas`): one whose node's lease lapsed less than
 * `unconfirmedGraceSeconds` ago (`node_lease_live` false: heartbeats late, the
 * node not yet declared lost), and one whose agent's Ready report is for an
 * older generation than desired (`generation_current` false). Node recovery
 * marks a lost node's replicas Lost, which removes them for good.
 *
 * A version whose license is not Approved (rejected or withdrawn after the
 * rollout) stops serving at the next refresh; the license's allowed data
 * classes travel with the route so the gateway can refuse other classes.
 *
 * Each row carries its deployment's routing policy, which the gateway's
 * admission applies to the route.
 *
 * The runtime load the replica last reported rides along as stored (nulls
 * when unread); the gateway judges its age itself (RUNTIME_LOAD_STALE_MS in
 * libs/domain), because a snapshot can outlive a database outage.
 *
 * Order is least recently updated deployment first, then least recently
 * updated assignment: a stable base order that lookup rotates through.
 */
const ROUTES_SQL = `
SELECT d.id AS deployment_id,
       d.model_ref,
       d.created_at AS deployment_created_at,
       d.routing_policy,
       n.address,
       a.endpoint_port,
       mv.context_length,
       l.document->'allowedDataClasses' AS allowed_data_classes,
       a.load_waiting,
       a.load_running,
       a.load_cache_pressure,
       a.load_scraped_at,
       n.lifecycle = 'Draining' AS node_draining,
       n.lease_expires_at > now() AS node_lease_live,
       a.observed_generation = a.generation AS generation_current
  FROM assignments a
  JOIN deployments d ON d.id = a.deployment_id
  JOIN nodes n ON n.id = a.node_id
  JOIN model_versions mv ON mv.id = d.model_version_id
  JOIN licenses l ON l.id = mv.license_id
 WHERE a.intent = 'Run'
   AND a.observed_state = 'Ready'
   AND a.observed_generation IS NOT NULL
   AND a.endpoint_port BETWEEN 1 AND 65535
   AND a.lease_expires_at > now()
   AND d.state NOT IN ('Stopping', 'Stopped', 'Failed')
   AND n.lifecycle IN ('Active', 'Draining')
   AND n.lease_expires_at > now() - make_interval(secs => $1)
   AND l.approval_state = 'Approved'
 ORDER BY d.model_ref, d.updated_at, d.id, a.updated_at, a.id`;

/**
 * Every alias that can route: its current revision's (stable) deployment and,
 * while a rollout runs, the canary deployment and its share in percent.
 */
const ALIASES_SQL = `
SELECT al.name,
       al.created_at,
       al.canary_deployment_id,
       al.canary_weight,
       r.deployment_id AS stable_deployment_id
  FROM aliases al
  LEFT JOIN alias_revisions r ON r.alias_id = al.id AND r.revision = al.current_revision
 WHERE al.current_revision > 0 OR al.canary_deployment_id IS NOT NULL
 ORDER BY al.name`;

/**
 * Every `model@version` a deployment is meant to serve: not being torn down,
 * its license Approved. Such a ref without a routable replica (being placed,
 * all replicas restarting) is a name that exists and will serve again, so the
 * gateway answers 503 with Retry-After for it, not 404.
 */
const DEPLOYED_REFS_SQL = `
SELECT DISTINCT d.model_ref
  FROM deployments d
  JOIN model_versions mv ON mv.id = d.model_version_id
  JOIN licenses l ON l.id = mv.license_id
 WHERE d.state NOT IN ('Stopping', 'Stopped', 'Failed')
   AND l.approval_state = 'Approved'`;

export interface RoutableAliasRow {
  readonly name: string;
  readonly created_at: Date;
  readonly canary_deployment_id: string | null;
  readonly canary_weight: number;
  readonly stable_deployment_id: string | null;
}

export interface RoutableReplicaRow {
  readonly deployment_id: string;
  readonly model_ref: string;
  readonly deployment_created_at: Date;
  /** contracts ROUTING_POLICIES; the gateway treats an unknown value as the default. */
  readonly routing_policy: string;
  readonly address: string;
  readonly endpoint_port: number;
  readonly context_length: number | null;
  readonly allowed_data_classes: unknown;
  readonly load_waiting: number | null;
  readonly load_running: number | null;
  readonly load_cache_pressure: number | null;
  readonly load_scraped_at: Date | null;
  readonly node_draining: boolean;
  readonly node_lease_live: boolean;
  readonly generation_current: boolean;
}

/**
 * Every replica that may take a new request now, or as a last resort (see ROUTES_SQL), in the table's stable
 * base order.
 */
export function routableReplicaRows(
  q: Queryable,
  unconfirmedGraceSeconds: number,
): Promise<RoutableReplicaRow[]> {
  return q.query<RoutableReplicaRow[]>(ROUTES_SQL, [unconfirmedGraceSeconds]);
}

/** Every alias that can route, with its stable and canary deployments. */
export function routableAliasRows(q: Queryable): Promise<RoutableAliasRow[]> {
  return q.query<RoutableAliasRow[]>(ALIASES_SQL);
}

/** The model refs that active deployments serve (see DEPLOYED_REFS_SQL), routable or not. */
export async function deployedModelRefs(q: Queryable): Promise<string[]> {
  const rows = await q.query<{ model_ref: string }[]>(DEPLOYED_REFS_SQL);
  return rows.map((row) => row.model_ref);
}
