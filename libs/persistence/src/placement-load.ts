import type { Queryable } from './fleet';

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
