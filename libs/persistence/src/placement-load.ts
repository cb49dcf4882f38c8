import type {
  CompatibleHardware,
  NodeInventory,
  NodeLabels,
  NodeLifecycleState,
  PlacementStrategy,
  Runtime,
  Taint,
} from '@lunanexa/contracts';
import {
  nodeRuntimeLoad,
  replicaMemoryDemand,
  type PlacementNode,
  type ReportedReplicaLoad,
} from '@lunanexa/domain';
import type { NodeRow, Queryable } from './fleet';

/**
 * What the scheduler reads of a node row: no keys, credential, observed state or telemetry. A placement reads
 * every node, and during a recovery several placements a second ran over a thousand full rows.
 */
export type PlacementNodeRow = Pick<
  NodeRow,
  | 'id'
  | 'name'
  | 'lifecycle'
  | 'cordoned'
  | 'labels'
  | 'taints'
  | 'leaseExpiresAt'
  | 'inventory'
  | 'conditions'
>;

/** Every node's PlacementNodeRow, by name (as listNodes orders them). */
export async function listPlacementNodeRows(q: Queryable): Promise<PlacementNodeRow[]> {
  const rows = await q.query<
    {
      id: string;
      name: string;
      lifecycle: NodeLifecycleState;
      cordoned: boolean;
      labels: NodeLabels;
      taints: Taint[];
      lease_expires_at: Date | null;
      inventory: NodeInventory;
      conditions: NodeRow['conditions'] | null;
    }[]
  >(
    `SELECT id, name, lifecycle, cordoned, labels, taints, lease_expires_at, inventory,
            conditions -> 'conditions' AS conditions
       FROM nodes ORDER BY name`,
  );
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    lifecycle: row.lifecycle,
    cordoned: row.cordoned,
    labels: row.labels,
    taints: row.taints,
    leaseExpiresAt: row.lease_expires_at === null ? null : new Date(row.lease_expires_at),
    inventory: row.inventory,
    conditions: row.conditions ?? [],
  }));
}

/** One replica meant to run, with what its version and runtime declare (the scheduler sizes its memory claim). */
export interface PlacedReplica {
  readonly nodeId: string;
  readonly requirements: unknown;
  readonly runtime: unknown;
}

/** Every replica meant to run on any node, across deployments, in one statement. */
export async function listPlacedReplicas(q: Queryable): Promise<PlacedReplica[]> {
  const rows = await q.query<{ node_id: string; requirements: unknown; runtime: unknown }[]>(
    `SELECT a.node_id, mv.requirements, mv.runtime
       FROM assignments a
       JOIN deployments d ON d.id = a.deployment_id
       JOIN model_versions mv ON mv.id = d.model_version_id
      WHERE a.intent = 'Run'`,
  );
  return rows.map((row) => ({ nodeId: row.node_id, requirements: row.requirements, runtime: row.runtime }));
}

/** Every runtime load report of a replica meant to run, per node. */
export async function listNodeRuntimeLoads(q: Queryable): Promise<Map<string, ReportedReplicaLoad[]>> {
  const rows = await q.query<
    {
      node_id: string;
      load_waiting: number | null;
      load_running: number | null;
      load_cache_pressure: number | null;
      load_scraped_at: Date;
    }[]
  >(
    `SELECT node_id, load_waiting, load_running, load_cache_pressure, load_scraped_at FROM assignments
      WHERE intent = 'Run' AND load_scraped_at IS NOT NULL`,
  );
  const loads = new Map<string, ReportedReplicaLoad[]>();
  for (const row of rows) {
    const list = loads.get(row.node_id) ?? [];
    list.push({
      waiting: row.load_waiting,
      running: row.load_running,
      cachePressure: row.load_cache_pressure,
      scrapedAtMs: new Date(row.load_scraped_at).getTime(),
    });
    loads.set(row.node_id, list);
  }
  return loads;
}

/**
 * Every node as the scheduler sees it: the node row plus the memory the
 * replicas meant to run there claim (every deployment's) and how many, its
 * runtimes' load (libs/domain nodeRuntimeLoad at `now`) and its stored
 * heartbeat conditions (NodeRow.conditions), which rule an unhealthy node out.
 * What placeDeployment decides on and what a dry-run plan shows.
 */
export async function loadPlacementNodes(
  q: Queryable,
  now: Date = new Date(),
): Promise<
  (PlacementNodeRow & Required<Pick<PlacementNode, 'placedMemoryBytes' | 'placedReplicas' | 'runtimeLoad'>>)[]
> {
  const load = new Map<string, { bytes: number; replicas: number }>();
  for (const replica of await listPlacedReplicas(q)) {
    const entry = load.get(replica.nodeId) ?? { bytes: 0, replicas: 0 };
    entry.bytes += replicaMemoryDemand(
      replica.requirements as CompatibleHardware,
      (replica.runtime as Runtime).supportedHardware,
    );
    entry.replicas += 1;
    load.set(replica.nodeId, entry);
  }
  const runtimeLoads = await listNodeRuntimeLoads(q);
  return (await listPlacementNodeRows(q)).map((node) => ({
    ...node,
    placedMemoryBytes: load.get(node.id)?.bytes ?? 0,
    placedReplicas: load.get(node.id)?.replicas ?? 0,
    runtimeLoad: nodeRuntimeLoad(runtimeLoads.get(node.id) ?? [], now.getTime()),
  }));
}

/** A replica meant to run on a node, with what its deployment asks of the node that would take it over. */
export interface NodeReplicaToMove {
  readonly deploymentId: string;
  readonly deploymentName: string;
  readonly nodeSelector: NodeLabels;
  readonly requestedNodeId: string | null;
  readonly placementStrategy: PlacementStrategy;
  /** Other nodes that run a replica of the deployment. */
  readonly runningOn: string[];
  readonly requirements: CompatibleHardware;
  readonly runtime: Runtime;
}

/** Every replica meant to run on `nodeId`, for planning a drain (one statement, deployments in name order). */
export async function listNodeReplicasToMove(q: Queryable, nodeId: string): Promise<NodeReplicaToMove[]> {
  const rows = await q.query<
    {
      id: string;
      name: string;
      node_selector: NodeLabels;
      requested_node_id: string | null;
      placement_strategy: PlacementStrategy;
      running_on: string[];
      requirements: unknown;
      runtime: unknown;
    }[]
  >(
    `SELECT d.id, d.name, d.node_selector, d.requested_node_id, d.placement_strategy, mv.requirements, mv.runtime,
            COALESCE((SELECT array_agg(o.node_id ORDER BY o.node_id) FROM assignments o
                       WHERE o.deployment_id = d.id AND o.intent = 'Run' AND o.node_id <> a.node_id),
                     '{}') AS running_on
       FROM assignments a
       JOIN deployments d ON d.id = a.deployment_id
       JOIN model_versions mv ON mv.id = d.model_version_id
      WHERE a.node_id = $1 AND a.intent = 'Run'
      ORDER BY d.name`,
    [nodeId],
  );
  return rows.map((row) => ({
    deploymentId: row.id,
    deploymentName: row.name,
    nodeSelector: row.node_selector,
    requestedNodeId: row.requested_node_id,
    placementStrategy: row.placement_strategy,
    runningOn: row.running_on,
    requirements: row.requirements as CompatibleHardware,
    runtime: row.runtime as Runtime,
  }));
}
