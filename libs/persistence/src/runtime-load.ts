import type { Queryable } from './fleet';

/** The runtime load of one deployment's replicas on one node, as the api's metrics export it. */
export interface RuntimeLoadRow {
  readonly deploymentId: string;
  readonly nodeName: string;
  /** Summed over the deployment's replicas on the node; null when none of them reported the figure. */
  readonly waiting: number | null;
  readonly running: number | null;
  /** The fullest cache among them (a fraction is not summed); null when none reported one. */
  readonly cachePressure: number | null;
}

/**
 * The load the replicas of running assignments last reported, per deployment
 * and node, leaving out reports scraped before `scrapedSince` (a node that
 * stopped reporting must not show its last figures forever). Per deployment
 * and node rather than per assignment so the metric's labels stay bounded by
 * the fleet, not by the churn of assignment ids.
 */
export async function listRuntimeLoads(q: Queryable, scrapedSince: Date): Promise<RuntimeLoadRow[]> {
  const rows = await q.query<
    {
      deployment_id: string;
      node_name: string;
      waiting: number | null;
      running: number | null;
      cache_pressure: number | null;
    }[]
  >(
    `SELECT a.deployment_id, n.name AS node_name,
            sum(a.load_waiting)::int AS waiting, sum(a.load_running)::int AS running,
            max(a.load_cache_pressure) AS cache_pressure
       FROM assignments a JOIN nodes n ON n.id = a.node_id
      WHERE a.intent = 'Run' AND a.load_scraped_at >= $1
      GROUP BY a.deployment_id, n.name
      ORDER BY a.deployment_id, n.name`,
    [scrapedSince],
  );
  return rows.map((row) => ({
    deploymentId: row.deployment_id,
    nodeName: row.node_name,
    waiting: row.waiting,
    running: row.running,
    cachePressure: row.cache_pressure === null ? null : Number(row.cache_pressure),
  }));
}
